import StewardCLI

Steward.main()
