import COpenSSL

/// Reads OpenSSL's per-thread error queue.
enum OpenSSLError {
    /// The oldest queued error as text (or "no OpenSSL error queued"); clears the queue.
    static func drain() -> String {
        let code = ERR_get_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return "no OpenSSL error queued" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A ``DTLSError/openSSL(function:reason:)`` for `function` with the queued reason.
    static func error(_ function: String) -> DTLSError {
        .openSSL(function: function, reason: drain())
    }
}
