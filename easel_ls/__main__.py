from easel_ls.cli import main

raise SystemExit(main())
