import CX11

/// An X protocol error (or the loss of the connection) as Xlib reported it to ``tk_x11_take_error()``, one case
/// per error code the screen capturer reacts to. Plain data; any thread.
enum X11Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// The window (or pixmap) no longer exists: `BadWindow`, `BadDrawable`.
    case badWindow(resource: UInt)
    /// The request does not fit the drawable: an area outside it, an unmapped window, a wrong depth.
    case badMatch
    /// The server refused access (MIT-SHM: segment not attachable from this client).
    case badAccess
    /// The server ran out of memory.
    case badAlloc
    /// The connection to the server broke (server gone); every later request fails at once.
    case connectionLost
    /// A request failed without reporting an error code.
    case requestFailed(String)
    /// Any other code, with the failing request's major and minor opcodes.
    case other(code: Int32, request: Int32, minor: Int32)

    /// The error recorded on this thread since the last call, or `nil`. Clears it.
    static func take(lost: Bool) -> X11Error? {
        let e = tk_x11_take_error()
        if lost { return .connectionLost }
        switch Int32(e.error_code) {
        case 0: return nil
        case BadWindow, BadDrawable: return .badWindow(resource: UInt(e.resource))
        case BadMatch: return .badMatch
        case BadAccess: return .badAccess
        case BadAlloc: return .badAlloc
        default: return .other(code: Int32(e.error_code), request: Int32(e.request_code), minor: Int32(e.minor_code))
        }
    }

    var description: String {
        switch self {
        case let .badWindow(r): "BadWindow (0x\(String(r, radix: 16)))"
        case .badMatch: "BadMatch"
        case .badAccess: "BadAccess"
        case .badAlloc: "BadAlloc"
        case .connectionLost: "connection to the X server lost"
        case let .requestFailed(what): "\(what) failed"
        case let .other(code, request, minor): "X error \(code) on request \(request).\(minor)"
        }
    }
}
