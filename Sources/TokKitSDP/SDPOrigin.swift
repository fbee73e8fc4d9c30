/// The origin line, `o=<username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address>` (RFC 8866 §5.2).
///
/// JSEP (RFC 8829 §5.2.1) uses `-` as username, a random 62-bit session id and a version that grows with each
/// new description of the session.
public struct SDPOrigin: Hashable, Sendable {
    public var username: String
    public var sessionID: UInt64
    public var sessionVersion: UInt64
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(username: String = "-", sessionID: UInt64, sessionVersion: UInt64 = 2, networkType: String = "IN",
                addressType: String = "IP4", address: String = "127.0.0.1") {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    init?(sdp value: Substring) {
        let f = value.fields
        guard f.count == 6, let id = UInt64(f[1]), let version = UInt64(f[2]),
              f.allSatisfy({ isVisible($0) }) else { return nil }
        self.init(username: String(f[0]), sessionID: id, sessionVersion: version, networkType: String(f[3]),
                  addressType: String(f[4]), address: String(f[5]))
    }

    var sdp: String { "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(address)" }
}
