import Foundation

/// How a contract file is read: strictly. A key the format does not have (`limt`,
/// `recordz`) is refused with its JSON path, a number that is not what its key takes is
/// named by its key, and a value outside a key's choices lists them. A fixture that says
/// something else than its author meant would otherwise pass, testing nothing.
extension SearchContract {
    /// Why the file cannot be read, with the JSON path (`cases[1].limt`).
    package struct ReadingError: Error {
        package let message: String
    }

    /// Any key of a JSON object, for listing the keys an object has.
    package struct AnyKey: CodingKey {
        package let stringValue: String
        package var intValue: Int? { nil }
        package init(stringValue: String) { self.stringValue = stringValue }
        package init?(intValue: Int) { nil }
    }

    /// An element of a JSON array, for its path.
    package struct IndexKey: CodingKey {
        package let intValue: Int?
        package var stringValue: String { "Index \(intValue ?? 0)" }
        package init(intValue: Int) { self.intValue = intValue }
        package init?(stringValue: String) { nil }
    }

    /// `number` as a whole number, or the reason it is none, named by `path`.
    package static func wholeNumber(_ decode: (Int64.Type) throws -> Int64, real: () -> Double?, path: [CodingKey]) throws -> Int64 {
        do {
            return try decode(Int64.self)
        } catch {
            // Not a number at all: said as every other value of the wrong type is.
            guard let real = real() else { throw error }
            let reason = real == real.rounded() ? "too large for a 64-bit whole number" : "not a whole number"
            throw ReadingError(message: "bad number at \(jsonPath(path)): \(shown(String(real))) is \(reason)")
        }
    }

    /// `cases[0].steps[1].key`, as written in JSON; "the top level" for the object itself.
    package static func jsonPath(_ codingPath: [CodingKey]) -> String {
        let path = codingPath.reduce(into: "") { path, key in
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return path.isEmpty ? "the top level" : path
    }

    /// Refuses the first key of the object `decoder` reads that is not one of `Keys`.
    /// The object's container, once no key but `Keys` is found in it.
    package static func container<Keys: CodingKey & CaseIterable>(of decoder: Decoder, allowing keys: Keys.Type) throws -> KeyedDecodingContainer<Keys> {
        try refuseUnknownKeys(in: decoder, allowed: keys)
        return try decoder.container(keyedBy: keys)
    }

    package static func refuseUnknownKeys<Keys: CodingKey & CaseIterable>(in decoder: Decoder, allowed _: Keys.Type) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let allowed = Keys.allCases.map(\.stringValue)
        // JSON objects have no order once decoded: the first unknown key by name, so
        // that the message is the same every time.
        guard let unknown = container.allKeys.map(\.stringValue).filter({ !allowed.contains($0) }).min() else { return }
        throw ReadingError(
            message: "unknown key \(jsonPath(container.codingPath + [AnyKey(stringValue: unknown)])) "
                + "(expected one of \(allowed.joined(separator: ", ")))")
    }

    /// A value that is printed back in a message: short and on one line.
    package static func shown(_ text: String) -> String {
        let line = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        return line.count > 40 ? String(line.prefix(40)) + "…" : line
    }

    /// What a type is called in a message about a value of the wrong type.
    package static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type, is Int32.Type: "a whole number"
        case is Double.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is [Any].Type, is [Step].Type, is [Case].Type, is [Int64].Type, is [[String: Value]].Type: "an array"
        case is [String: Any].Type, is [String: Value].Type: "an object"
        default: "another type"
        }
    }
}

extension KeyedDecodingContainer {
    /// A whole number at `key`, or nil when the key is absent (or null). A number with a
    /// fraction, or too large for 64 bits, is refused naming the key; so is one below
    /// `minimum`, whose meaning `rule` gives.
    package func wholeNumber(forKey key: Key, minimum: Int64? = nil, rule: String = "") throws -> Int64? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        let number = try SearchContract.wholeNumber(
            { try decode($0, forKey: key) }, real: { try? decode(Double.self, forKey: key) }, path: codingPath + [key])
        if let minimum, number < minimum {
            throw SearchContract.ReadingError(
                message: "bad number at \(SearchContract.jsonPath(codingPath + [key])): \(number) is below \(minimum)\(rule)")
        }
        return number
    }

    /// An array of whole numbers at `key`, each named by its path when it is none; nil
    /// when absent.
    package func wholeNumbers(forKey key: Key) throws -> [Int64]? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        var list = try nestedUnkeyedContainer(forKey: key)
        var numbers: [Int64] = []
        while !list.isAtEnd {
            let path = list.codingPath + [SearchContract.IndexKey(intValue: list.currentIndex)]
            // A failed decode does not move on: the element is read again as a Double.
            var retry = list
            numbers.append(try SearchContract.wholeNumber({ try list.decode($0) }, real: { try? retry.decode(Double.self) }, path: path))
        }
        return numbers
    }

    /// A string at `key` that must be one of `choices` (an enum's raw values); nil when
    /// absent.
    package func choice<Choice: RawRepresentable & CaseIterable>(_ type: Choice.Type, forKey key: Key) throws -> Choice?
    where Choice.RawValue == String {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let value = Choice(rawValue: text) else {
            throw SearchContract.ReadingError(
                message: "bad value at \(SearchContract.jsonPath(codingPath + [key])): '\(SearchContract.shown(text))' "
                    + "(expected one of \(Choice.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return value
    }
}
