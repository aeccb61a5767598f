"""Whisper's text decoder, run in numpy over a decision's phrase trie.

CTranslate2 forces one token sequence per batch row: written forms that share an opening
("add to module two", "add to module three") pay for it again, every row projects its every
prompt token onto the whole vocabulary, and the encoder's output is copied into every row.
Here the written forms are one trie: each node is one decoder step, the steps of one depth run
as one batch against the encoder's output attended once, and the branches far below the best
are dropped at every depth (a beam over the trie). The weights are the model's own, read from
its `model.bin` and `config.json`, whose hashes the engine has already checked.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORMAT_VERSION = 6  # CTranslate2's model.bin layout read here
DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}
LAYER_NORM_EPS = 1e-5
# the widest a depth of the trie may be: rows of logits over the whole vocabulary cost memory
BEAM_WIDTH = 64
READ_VALUES = 1 << 20


Attended = tuple[tuple[np.ndarray, np.ndarray], ...]  # per layer, the encoder's keys, values


class ModelFormatError(Exception):
    """model.bin is not a CTranslate2 Whisper model this reader knows."""


@dataclass(frozen=True)
class Stored:
    """Where one variable's values lie in model.bin."""

    offset: int
    shape: tuple[int, ...]
    dtype: np.dtype

    def read(self, path: Path) -> np.ndarray:
        """The values as float32, read in slices: the file is never held whole in memory."""
        values = np.empty(self.shape, np.float32)
        flat = values.reshape(-1)
        step = READ_VALUES
        with path.open("rb") as f:
            f.seek(self.offset)
            for start in range(0, flat.size, step):
                count = min(step, flat.size - start)
                flat[start:start + count] = np.frombuffer(
                    f.read(count * self.dtype.itemsize), self.dtype)
        return values


def read_variables(path: Path) -> dict[str, Stored]:
    """Where every variable of a CTranslate2 model.bin lies, by name."""
    with path.open("rb") as f:

        def take(fmt: str) -> int:
            (value,) = struct.unpack(fmt, f.read(struct.calcsize(fmt)))
            return value

        def name() -> str:
            return f.read(take("<H")).decode("utf-8").rstrip("\0")

        if take("<I") != FORMAT_VERSION:
            raise ModelFormatError(f"{path} is not a model.bin of version {FORMAT_VERSION}")
        if name() != "WhisperSpec":
            raise ModelFormatError(f"{path} is not a Whisper model")
        take("<I")  # the spec's revision
        variables: dict[str, Stored] = {}
        for _ in range(take("<I")):
            key = name()
            shape = tuple(take("<I") for _ in range(take("<B")))
            dtype = np.dtype(DTYPES[take("<B")])
            size = take("<I")
            variables[key] = Stored(f.tell(), shape, dtype)
            f.seek(size, 1)
        for _ in range(take("<I")):
            alias, target = name(), name()
            variables[alias] = variables[target]
    return variables


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    return centred / np.sqrt((centred * centred).mean(-1, keepdims=True) + LAYER_NORM_EPS) \
        * gamma + beta


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz and Stegun 7.1.26, within 1.5e-7: numpy has no erf
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t
            + 0.254829592) * t
    return np.sign(x) * (1.0 - poly * np.exp(-x * x))


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))


def _softmax(scores: np.ndarray) -> np.ndarray:
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    return scores / scores.sum(-1, keepdims=True)


@dataclass(frozen=True)
class Layer:
    self_norm: tuple[np.ndarray, np.ndarray]
    self_qkv: tuple[np.ndarray, np.ndarray]  # weights transposed: x @ w + b
    self_out: tuple[np.ndarray, np.ndarray]
    cross_norm: tuple[np.ndarray, np.ndarray]
    cross_q: tuple[np.ndarray, np.ndarray]
    cross_kv: tuple[np.ndarray, np.ndarray]
    cross_out: tuple[np.ndarray, np.ndarray]
    ffn_norm: tuple[np.ndarray, np.ndarray]
    ffn_in: tuple[np.ndarray, np.ndarray]
    ffn_out: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class State:
    """Decoded tokens, batched: each layer's keys and values so far, and the log-probabilities
    of the next token."""

    keys: tuple[np.ndarray, ...]  # per layer, (batch, tokens, width)
    values: tuple[np.ndarray, ...]
    next_token: np.ndarray  # (batch, vocabulary)

    @property
    def length(self) -> int:
        return self.keys[0].shape[1]


class TextDecoder:
    """Whisper's decoder: the log-probabilities of token sequences given the encoder's output."""

    def __init__(self, model_dir: Path) -> None:
        model_bin = model_dir / "model.bin"
        variables = read_variables(model_bin)
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        # the tokens CTranslate2 never lets Whisper write (symbols such as '"', "#", "(")
        self.suppressed = np.array(config.get("suppress_ids", []), dtype=int)

        def weight(key: str) -> np.ndarray:
            return variables[f"decoder/{key}"].read(model_bin)

        def linear(key: str) -> tuple[np.ndarray, np.ndarray]:
            return np.ascontiguousarray(weight(f"{key}/weight").T), weight(f"{key}/bias")

        def norm(key: str) -> tuple[np.ndarray, np.ndarray]:
            return weight(f"{key}/gamma"), weight(f"{key}/beta")

        self.embeddings = weight("embeddings/weight")  # the output projection too
        self.positions = weight("position_encodings/encodings")
        self.heads = int(variables["decoder/num_heads"].read(model_bin).reshape(-1)[0])
        self.layers: list[Layer] = []
        while f"decoder/layer_{len(self.layers)}/ffn/linear_0/weight" in variables:
            p = f"layer_{len(self.layers)}"
            self.layers.append(Layer(
                norm(f"{p}/self_attention/layer_norm"), linear(f"{p}/self_attention/linear_0"),
                linear(f"{p}/self_attention/linear_1"), norm(f"{p}/attention/layer_norm"),
                linear(f"{p}/attention/linear_0"), linear(f"{p}/attention/linear_1"),
                linear(f"{p}/attention/linear_2"), norm(f"{p}/ffn/layer_norm"),
                linear(f"{p}/ffn/linear_0"), linear(f"{p}/ffn/linear_1")))
        self.final_norm = norm("layer_norm")

    def attend(self, memory: np.ndarray) -> Attended:
        """Each layer's keys and values of the encoder's output (frames, width), split by head."""
        width = memory.shape[-1]
        split = []
        for layer in self.layers:
            kv = memory @ layer.cross_kv[0] + layer.cross_kv[1]
            split.append((self._by_head(kv[:, :width]), self._by_head(kv[:, width:])))
        return tuple(split)

    def _by_head(self, x: np.ndarray) -> np.ndarray:
        """(..., tokens, width) as (..., heads, tokens, width / heads)."""
        *lead, tokens, width = x.shape
        return np.ascontiguousarray(
            x.reshape(*lead, tokens, self.heads, width // self.heads).swapaxes(-2, -3))

    def start(self, cross: Attended,
              tokens: Sequence[int]) -> State:
        """The state after `tokens` (the transcript's prefix), one row."""
        empty = np.zeros((1, 0, self.embeddings.shape[1]), np.float32)
        root = State(tuple(empty for _ in self.layers), tuple(empty for _ in self.layers),
                     np.zeros((1, 0), np.float32))
        return self.extend(cross, root, np.zeros(1, int), np.array([list(tokens)]))

    def extend(self, cross: Attended, state: State,
               rows: np.ndarray, tokens: np.ndarray) -> State:
        """The state of each of `state`'s `rows` followed by its own `tokens` (rows, new)."""
        keys, values, x = self._forward(cross, state, rows, tokens)
        return State(keys, values, self._next_token(x[:, -1]))

    def along(self, cross: Attended, start: State, tokens: Sequence[int]) -> np.ndarray:
        """The log-probabilities of the next token after `start`'s one row and after each of
        `tokens` in turn: (len(tokens) + 1, vocabulary)."""
        if not tokens:
            return start.next_token[:1]
        _, _, x = self._forward(cross, start, np.zeros(1, int), np.array([list(tokens)]))
        return np.concatenate([start.next_token[:1], self._next_token(x[0])])

    def _forward(self, cross: Attended, state: State, rows: np.ndarray, tokens: np.ndarray
                 ) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...], np.ndarray]:
        """Each layer's keys and values of `state`'s `rows` followed by `tokens`, and the last
        layer's output at every new token."""
        batch, new = tokens.shape
        width = self.embeddings.shape[1]
        start = state.length
        x = self.embeddings[tokens] + self.positions[start:start + new]
        future = np.triu(np.full((new, start + new), -np.inf, np.float32), k=start + 1)
        scale = np.float32(1.0 / np.sqrt(width // self.heads))
        keys, values = [], []
        for layer, before_k, before_v, (cross_k, cross_v) in zip(
                self.layers, state.keys, state.values, cross, strict=True):
            h = layer_norm(x, *layer.self_norm)
            qkv = h @ layer.self_qkv[0] + layer.self_qkv[1]
            k = np.concatenate([before_k[rows], qkv[..., width:2 * width]], axis=1)
            v = np.concatenate([before_v[rows], qkv[..., 2 * width:]], axis=1)
            keys.append(k)
            values.append(v)
            q = self._by_head(qkv[..., :width]) * scale
            attention = _softmax(q @ self._by_head(k).swapaxes(-1, -2) + future)
            x = x + self._merge(attention @ self._by_head(v)) @ layer.self_out[0] \
                + layer.self_out[1]
            h = layer_norm(x, *layer.cross_norm)
            q = self._by_head(h @ layer.cross_q[0] + layer.cross_q[1]) * scale
            attention = _softmax(q @ cross_k.swapaxes(-1, -2))
            x = x + self._merge(attention @ cross_v) @ layer.cross_out[0] + layer.cross_out[1]
            h = layer_norm(x, *layer.ffn_norm)
            x = x + gelu(h @ layer.ffn_in[0] + layer.ffn_in[1]) @ layer.ffn_out[0] \
                + layer.ffn_out[1]
        return tuple(keys), tuple(values), x

    def _next_token(self, x: np.ndarray) -> np.ndarray:
        """The log-probabilities of the next token from the last layer's outputs (n, width)."""
        logits = layer_norm(x, *self.final_norm) @ self.embeddings.T
        logits[:, self.suppressed] = -np.inf
        return self._log_softmax(logits)

    @staticmethod
    def _merge(x: np.ndarray) -> np.ndarray:
        """(batch, heads, tokens, part) as (batch, tokens, width)."""
        batch, heads, tokens, part = x.shape
        return x.swapaxes(1, 2).reshape(batch, tokens, heads * part)

    @staticmethod
    def _log_softmax(logits: np.ndarray) -> np.ndarray:
        top = logits.max(-1, keepdims=True)
        logits -= top
        total = np.log(np.exp(logits).sum(-1, keepdims=True))
        logits -= total
        return logits

    def score_trie(self, cross: Attended, start: State,
                   sequences: Sequence[Sequence[int]], ends: Sequence[int], *,
                   prune_nats: float, prune_after: int, width: int = BEAM_WIDTH
                   ) -> np.ndarray:
        """log P(sequence, then one of the `ends`) after `start`, for each sequence; -inf where
        it was pruned. At each depth the branches more than `prune_nats` below the best are
        dropped: always at the first token, deeper only while more than `prune_after`
        sequences are left, and never more than `width` kept."""
        trie = Trie(sequences)
        totals = np.full(len(sequences), -np.inf)
        state, nodes, said = start, [0], np.zeros(1)
        depth = 0
        while True:
            for row, node in enumerate(nodes):
                if trie.ending[node]:
                    ended = said[row] + float(np.logaddexp.reduce(state.next_token[row, ends]))
                    totals[trie.ending[node]] = ended
            rows, tokens, children, scores = [], [], [], []
            for row, node in enumerate(nodes):
                for token, child in trie.children[node].items():
                    rows.append(row)
                    tokens.append(token)
                    children.append(child)
                    scores.append(said[row] + float(state.next_token[row, token]))
            if not children:
                return totals
            kept = np.array(scores)
            left = sum(trie.below[c] for c in children)
            if depth == 0 or left > prune_after:
                kept = np.flatnonzero(kept >= kept.max() - prune_nats)
            else:
                kept = np.arange(len(children))
            kept = kept[np.argsort(-np.array(scores)[kept], kind="stable")[:width]]
            state = self.extend(cross, state, np.array(rows)[kept],
                                np.array(tokens)[kept][:, None])
            nodes = [children[i] for i in kept]
            said = np.array(scores)[kept]
            depth += 1


class Trie:
    """Token sequences as a trie: node 0 is the empty opening."""

    def __init__(self, sequences: Sequence[Sequence[int]]) -> None:
        self.children: list[dict[int, int]] = [{}]
        self.ending: list[list[int]] = [[]]
        self.below: list[int] = [0]  # how many sequences pass through or end at each node
        for index, sequence in enumerate(sequences):
            node = 0
            self.below[0] += 1
            for token in sequence:
                child = self.children[node].get(token)
                if child is None:
                    child = self.children[node][token] = len(self.children)
                    self.children.append({})
                    self.ending.append([])
                    self.below.append(0)
                node = child
                self.below[node] += 1
            self.ending[node].append(index)
