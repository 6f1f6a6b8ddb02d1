@testable import StewardBase
@testable import StewardCLI
import StewardCore
import Testing

@Suite struct RemedyWordingTests {
    @Test(arguments: [
        (StewardError.Remedy.createMissingDatabase, "--create"),
        (.createFromEmptyFile, "--create"),
        (.allowChangedMigrations, "--allow-changed"),
        (.allowOutOfOrder(count: 2), "--allow-out-of-order"),
        (.withoutBaseline, "--baseline"),
        (.nulSeparatedList, "--null"),
        (.giveKey, "--identity"),
        (.chooseDialect, "--dialect"),
        (.nameDialect(["steward", "sqlx"]), "--dialect sqlx"),
        (.allowDrift, "--allow-drift"),
        (.loadExtension, "--load-extension"),
        (.directoryApart, "--out"),
        (.givePlaceholder(name: "owner"), "--placeholder 'owner=VALUE'"),
    ])
    func eachRemedyNamesItsOption(_ remedy: StewardError.Remedy, _ option: String) {
        #expect(RemedyWording.suffix(for: remedy).contains(option))
    }

    @Test func theMessageIsTheCoreTextThenTheOption() {
        let error = StewardError(.notFound, "/data/app.db: no such database", remedy: .createMissingDatabase)
        #expect(RemedyWording.message(of: error) == "/data/app.db: no such database (use --create to make a new one)")
        #expect(RemedyWording.message(of: StewardError(.badInput, "plain")) == "plain")
    }

    @Test(arguments: [(1, "it"), (3, "them")])
    func outOfOrderCountsWhatItApplies(_ count: Int, _ pronoun: String) {
        #expect(RemedyWording.suffix(for: .allowOutOfOrder(count: count))
            == "; pass --allow-out-of-order to apply \(pronoun) anyway")
    }
}
