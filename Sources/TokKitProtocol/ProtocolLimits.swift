/// Hard limits of the protocol, identical on server and client (Docs/Protocol.md, "Limits").
///
/// The server enforces every one of them; a client may check them before sending to fail early with the same code.
public enum ProtocolLimits {
    /// Largest WebSocket message the server reads, in bytes. A larger frame closes that socket (close code 1009).
    public static let maxFrameBytes = 65_536
    /// Longest signal type, in characters of `[A-Za-z0-9-_~]` (``ErrorCode/invalidSignalType`` otherwise).
    public static let maxSignalTypeLength = 128
    /// Largest signal data, in UTF-8 bytes (``ErrorCode/signalDataTooLong`` otherwise).
    public static let maxSignalDataBytes = 8_192
    /// Longest connection data carried by a token, in Unicode scalars.
    public static let maxConnectionDataLength = 1_000
    /// Longest stream name, in Unicode scalars.
    public static let maxStreamNameLength = 1_000
    /// Largest opaque negotiation payload (SDP or candidate), in UTF-8 bytes.
    public static let maxNegotiationPayloadBytes = 60_000
    /// Default token lifetime: 24 hours, in seconds.
    public static let defaultTokenLifetime: Int64 = 86_400
    /// Longest token lifetime: 30 days, in seconds.
    public static let maxTokenLifetime: Int64 = 30 * 86_400
    /// Longest token (client token or admin JWT) accepted, in bytes (``ErrorCode/authorizationFailure`` otherwise).
    public static let maxTokenBytes = 4_096
    /// How far in the future a token's `iat` may be (clock skew allowance), in seconds.
    public static let tokenClockSkew: Int64 = 300
    /// Longest admin JWT lifetime (`exp` − now, plus ``tokenClockSkew``), in seconds.
    public static let maxAdminTokenLifetime: Int64 = 300
    /// Largest video dimension accepted in a stream description, in pixels.
    public static let maxVideoDimension = 16_384
    /// The frame rates a stream may announce (`frameRate` of `publish`), in frames per second.
    public static let frameRateRange: ClosedRange<Double> = 1...120
    /// The frame rate assumed for a stream that announced none (clients older than `frameRate`).
    public static let assumedFrameRate = 30.0
}
