import ArgumentKit
import Foundation
import StewardCore
import BundleFormat

/// The options that name the keys of encrypted bundles (age): recipients and a passphrase
/// for `backup`, identities and a passphrase for `restore` and `inspect`. A passphrase is
/// never an argument: the command line is visible to every user of the machine.
enum KeyOptions {
    static let recipient = RepeatedOption<String>(
        "recipient", value: "age1…", help: "Encrypt the bundle to this age X25519 recipient (repeatable).")
    static let recipientsFile = RepeatedOption<String>(
        "recipients-file", value: "file", help: "Encrypt to every age1… recipient in this file (repeatable).")
    static let identity = RepeatedOption<String>(
        "identity", value: "file", help: "An age identity file (AGE-SECRET-KEY-1… lines) to open an encrypted bundle (repeatable).")
    static let passphraseFile = Option<String>(
        "passphrase-file", value: "file", help: "Read the passphrase of an encrypted bundle from the first line of this file.")
    static let passphraseEnvironment = Option<String>(
        "passphrase-env", value: "name", help: "Read the passphrase of an encrypted bundle from this environment variable.")

    static let forEncryption: [any OptionKey] = [recipient, recipientsFile, passphraseFile, passphraseEnvironment]
    static let forDecryption: [any OptionKey] = [identity, passphraseFile, passphraseEnvironment]

    /// The keys as given; usage errors for what can be judged without reading a file.
    static func parse(_ values: ParsedValues, encrypting: Bool) throws(CommandLineError) -> BundleKeys {
        var keys = BundleKeys()
        if encrypting {
            keys.recipients = values[recipient]
            for text in keys.recipients {
                if let problem = BundleKeys.problem(withRecipient: text) {
                    throw values.error("The value '\(text)' is invalid for '--recipient <age1…>': \(problem)")
                }
            }
            keys.recipientsFiles = values[recipientsFile]
        } else {
            keys.identityFiles = values[identity]
        }
        let file = values[passphraseFile], variable = values[passphraseEnvironment]
        if file != nil, variable != nil {
            throw values.error("'--passphrase-file' and '--passphrase-env' cannot be used together")
        }
        if let file { keys.passphrase = .file(file) }
        if let variable {
            guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
                throw values.error("The environment variable '\(variable)' given to '--passphrase-env <name>' is not set or empty")
            }
            keys.passphrase = .environment(variable)
        }
        if encrypting, keys.passphrase != nil, !keys.recipients.isEmpty || !keys.recipientsFiles.isEmpty {
            throw values.error("A passphrase cannot be combined with '--recipient' or '--recipients-file': "
                               + "an age file with a passphrase has no other recipient")
        }
        return keys
    }
}
