extension DialectSet.Detection {
    /// Why a run reads the set in its layout. In a report it is one string, `text`: what
    /// detection found, or for a layout the caller chose, the core's words until the
    /// command line words them with its option (the core never names one).
    public struct Reason: Codable, Sendable, Equatable {
        /// The caller named the layout; nothing was detected. Not part of the JSON.
        public let chosen: Bool
        public var text: String

        /// What in the files or the database decided the layout.
        static func found(_ text: String) -> Reason {
            Reason(chosen: false, text: text)
        }

        /// The caller named the layout.
        static let chosen = Reason(chosen: true, text: "chosen by the caller")

        private init(chosen: Bool, text: String) {
            self.chosen = chosen
            self.text = text
        }

        public init(from decoder: any Decoder) throws {
            chosen = false
            text = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
    }
}
