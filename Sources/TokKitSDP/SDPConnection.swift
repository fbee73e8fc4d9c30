/// Connection data, `c=<nettype> <addrtype> <connection-address>` (RFC 8866 §5.7). With ICE (RFC 8839 §4.2.1) the
/// address is informational; JSEP writes `IN IP4 0.0.0.0` until candidates are known.
public struct SDPConnection: Hashable, Sendable {
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(networkType: String = "IN", addressType: String = "IP4", address: String = "0.0.0.0") {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    init?(sdp value: Substring) {
        let f = value.fields
        guard f.count == 3, f.allSatisfy({ isVisible($0) }) else { return nil }
        self.init(networkType: String(f[0]), addressType: String(f[1]), address: String(f[2]))
    }

    var sdp: String { "\(networkType) \(addressType) \(address)" }
}
