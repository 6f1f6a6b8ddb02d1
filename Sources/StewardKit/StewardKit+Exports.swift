// What an app's test reads from a run (`CheckResult`, `CheckName`, `ContractCaseResult`,
// `SearchContract`, `StewardError`) comes with `import StewardKit`.
@_exported import StewardBase
@_exported import StewardChecks
