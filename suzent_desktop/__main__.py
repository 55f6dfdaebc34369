from suzent_desktop.cli import main

raise SystemExit(main())
