/// The protocol's input rules as pure functions, shared by server (which enforces them) and client (which may
/// check early). Each returns normally or throws a ``ProtocolError`` with the code the server would send.
public enum Validation {
    /// A signal type: empty, or at most ``ProtocolLimits/maxSignalTypeLength`` characters of `[A-Za-z0-9-_~]`.
    public static func signalType(_ type: String) throws(ProtocolError) {
        var count = 0
        for byte in type.utf8 {
            count += 1
            guard count <= ProtocolLimits.maxSignalTypeLength else {
                throw ProtocolError(.invalidSignalType, "signal type longer than \(ProtocolLimits.maxSignalTypeLength)")
            }
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                continue
            default:
                throw ProtocolError(.invalidSignalType, "signal type may only contain A-Z a-z 0-9 - _ ~")
            }
        }
    }

    /// Signal data: at most ``ProtocolLimits/maxSignalDataBytes`` UTF-8 bytes.
    public static func signalData(_ data: String) throws(ProtocolError) {
        guard data.utf8.count <= ProtocolLimits.maxSignalDataBytes else {
            throw ProtocolError(.signalDataTooLong, "signal data longer than \(ProtocolLimits.maxSignalDataBytes) bytes")
        }
    }

    /// Connection data: at most ``ProtocolLimits/maxConnectionDataLength`` Unicode scalars.
    public static func connectionData(_ data: String) throws(ProtocolError) {
        guard data.unicodeScalars.count <= ProtocolLimits.maxConnectionDataLength else {
            throw ProtocolError(
                .invalidParameter, "connection data longer than \(ProtocolLimits.maxConnectionDataLength) characters")
        }
    }

    /// Token lifetime in seconds: in `1...ProtocolLimits.maxTokenLifetime`.
    public static func tokenLifetime(_ seconds: Int64) throws(ProtocolError) {
        guard seconds >= 1, seconds <= ProtocolLimits.maxTokenLifetime else {
            throw ProtocolError(.invalidParameter, "token lifetime must be 1...\(ProtocolLimits.maxTokenLifetime) s")
        }
    }

    /// The expiry of a requested token (`expireTime` of a token request, seconds since the epoch; nil: the default
    /// lifetime from `now`): must be after `now` and at most ``ProtocolLimits/maxTokenLifetime`` ahead. Both numbers
    /// may be anything (one comes from a REST body): checked arithmetic, a typed error, never a trap.
    public static func tokenExpiry(_ requested: Int64?, now: Int64) throws(ProtocolError) -> Int64 {
        let expiry = requested ?? now.saturatingAdding(ProtocolLimits.defaultTokenLifetime)
        guard expiry > now else { throw ProtocolError(.invalidParameter, "expireTime must be in the future") }
        let lifetime = expiry.subtractingReportingOverflow(now)
        guard !lifetime.overflow else {
            throw ProtocolError(.invalidParameter, "token lifetime must be 1...\(ProtocolLimits.maxTokenLifetime) s")
        }
        try tokenLifetime(lifetime.partialValue)
        return expiry
    }

    /// Stream name: at most ``ProtocolLimits/maxStreamNameLength`` Unicode scalars.
    public static func streamName(_ name: String) throws(ProtocolError) {
        guard name.unicodeScalars.count <= ProtocolLimits.maxStreamNameLength else {
            throw ProtocolError(.invalidParameter, "stream name longer than \(ProtocolLimits.maxStreamNameLength)")
        }
    }

    /// Video dimensions: both sides in `1...ProtocolLimits.maxVideoDimension`.
    public static func videoDimensions(_ dimensions: VideoDimensions?) throws(ProtocolError) {
        if let dimensions, !dimensions.isValid {
            throw ProtocolError(.invalidParameter, "video dimensions out of range")
        }
    }

    /// A stream's announced frame rate: finite and in ``ProtocolLimits/frameRateRange`` frames per second.
    public static func frameRate(_ rate: Double?) throws(ProtocolError) {
        if let rate, !(rate.isFinite && ProtocolLimits.frameRateRange.contains(rate)) {
            let range = ProtocolLimits.frameRateRange
            throw ProtocolError(.invalidParameter,
                                "frameRate must be a number in \(Int(range.lowerBound))...\(Int(range.upperBound))")
        }
    }

    /// Negotiation payload: at most ``ProtocolLimits/maxNegotiationPayloadBytes`` UTF-8 bytes.
    public static func negotiationPayload(_ payload: String) throws(ProtocolError) {
        guard payload.utf8.count <= ProtocolLimits.maxNegotiationPayloadBytes else {
            throw ProtocolError(.invalidParameter, "negotiation payload too large")
        }
    }
}
