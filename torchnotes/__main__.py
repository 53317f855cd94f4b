import sys

from torchnotes.cli import main

sys.exit(main())
