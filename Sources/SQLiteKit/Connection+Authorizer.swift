import CSQLite

/// What SQLite's authorizer reports while it compiles a statement
/// (https://sqlite.org/c3ref/set_authorizer.html): every table, index, trigger and view the
/// statement creates, drops, alters or writes, including the statements of the triggers it
/// fires, which are compiled into it.
///
/// > The authorizer callback is invoked as SQL statements are being compiled by
/// > sqlite3_prepare() or its variants.
///
/// So what a statement will touch is known after it is prepared and before it is stepped.
public struct AuthorizerEvent: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case createIndex(index: String, table: String)
        case createTable(String)
        case createTrigger(trigger: String, table: String)
        case createView(String)
        case createVirtualTable(table: String, module: String)
        case delete(table: String)
        case dropIndex(index: String, table: String)
        case dropTable(String)
        case dropTrigger(trigger: String, table: String)
        case dropView(String)
        case dropVirtualTable(table: String, module: String)
        case insert(table: String)
        case update(table: String, column: String)
        /// Every form of ALTER TABLE (rename, add, rename and drop column).
        case alterTable(String)
    }

    public let action: Action
    /// The trigger or view whose body the access comes from; nil at the statement's top level.
    public let trigger: String?

    /// Maps one callback to an event of the `main` schema; nil for reads, function calls,
    /// pragmas, temporary objects and other databases.
    static func make(_ code: Int32, _ first: String?, _ second: String?, database: String?, trigger: String?) -> AuthorizerEvent? {
        let a = first ?? "", b = second ?? ""
        // ALTER TABLE reports the schema first and the table second.
        if code == SQLITE_ALTER_TABLE {
            return a == "main" ? AuthorizerEvent(action: .alterTable(b), trigger: trigger) : nil
        }
        guard database == "main" else { return nil }
        let action: Action
        switch code {
        case SQLITE_CREATE_INDEX: action = .createIndex(index: a, table: b)
        case SQLITE_CREATE_TABLE: action = .createTable(a)
        case SQLITE_CREATE_TRIGGER: action = .createTrigger(trigger: a, table: b)
        case SQLITE_CREATE_VIEW: action = .createView(a)
        case SQLITE_CREATE_VTABLE: action = .createVirtualTable(table: a, module: b)
        case SQLITE_DELETE: action = .delete(table: a)
        case SQLITE_DROP_INDEX: action = .dropIndex(index: a, table: b)
        case SQLITE_DROP_TABLE: action = .dropTable(a)
        case SQLITE_DROP_TRIGGER: action = .dropTrigger(trigger: a, table: b)
        case SQLITE_DROP_VIEW: action = .dropView(a)
        case SQLITE_DROP_VTABLE: action = .dropVirtualTable(table: a, module: b)
        case SQLITE_INSERT: action = .insert(table: a)
        case SQLITE_UPDATE: action = .update(table: a, column: b)
        default: return nil
        }
        return AuthorizerEvent(action: action, trigger: trigger)
    }
}

extension Connection {
    /// Calls `observer` with each create, drop, alter and write that SQLite's authorizer
    /// reports for the `main` schema while statements are prepared on this connection.
    /// Observes only: every action is allowed. The observer must not use the connection
    /// (SQLite forbids it inside the callback). Pass `nil` to remove it.
    public func setAuthorizer(_ observer: ((AuthorizerEvent) -> Void)?) {
        sqlite3_set_authorizer(sqliteConnection, nil, nil)
        authorizerBox = observer.map(CallbackBox.init)
        guard let authorizerBox else { return }
        sqlite3_set_authorizer(sqliteConnection, { context, code, first, second, database, trigger in
            guard let observer = CallbackBox<(AuthorizerEvent) -> Void>.handler(context) else { return SQLITE_OK }
            if let event = AuthorizerEvent.make(
                code, first.map { String(cString: $0) }, second.map { String(cString: $0) },
                database: database.map { String(cString: $0) }, trigger: trigger.map { String(cString: $0) })
            {
                observer(event)
            }
            return SQLITE_OK
        }, authorizerBox.context)
    }
}
