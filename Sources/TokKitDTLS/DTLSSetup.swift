/// The SDP `a=setup` attribute (RFC 4145 §4, RFC 5763 §5) and how it decides the DTLS role.
///
/// Value type, usable from any thread.
public enum DTLSSetup: String, Sendable, Hashable {
    /// Offerer: either role (what browsers offer).
    case actpass
    /// This side is the DTLS client.
    case active
    /// This side is the DTLS server.
    case passive

    /// The setup to answer an offer with: `active` for `actpass` (as browsers do), else the opposite.
    public static func answer(to offer: DTLSSetup) -> DTLSSetup {
        offer == .active ? .passive : .active
    }

    /// This side's DTLS role, given the setup it sent and the one the peer sent. Throws
    /// ``DTLSError/incompatibleSetup`` when both want the same role or the answer is `actpass`.
    public static func role(local: DTLSSetup, remote: DTLSSetup) throws(DTLSError) -> DTLSRole {
        switch (local, remote) {
        case (.active, .actpass), (.active, .passive), (.actpass, .passive): .client
        case (.passive, .actpass), (.passive, .active), (.actpass, .active): .server
        default: throw .incompatibleSetup
        }
    }
}
