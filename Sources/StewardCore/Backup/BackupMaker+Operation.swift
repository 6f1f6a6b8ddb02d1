extension BackupMaker: StewardOperation {}
