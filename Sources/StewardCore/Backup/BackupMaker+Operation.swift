extension BackupMaker: Operation {}
