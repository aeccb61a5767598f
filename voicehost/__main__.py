"""`python -m voicehost`: the same as the `voicehost` command."""

from voicehost.cli import main

raise SystemExit(main())
