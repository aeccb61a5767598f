"""Everything the host says or accepts, as YAML: installed as the package `voicehost.prompts`,
so that `importlib.resources` finds this folder wherever voicehost is installed."""
