import TokKitProtocol

/// Fuzz entry for the REST bodies of Docs/Protocol.md, 5 (TokKitProtocol/REST): the first byte picks the type,
/// the rest is its JSON as ``WireCodec/decode(_:from:)`` reads it. Requests the server reads (`POST
/// /session/create`, `.../token`, `.../signal`) then go through the rules the server applies: the token request's
/// `expireTime` through ``Validation/tokenExpiry(_:now:)`` at every clock of ``FuzzTokens/nows`` (checked
/// arithmetic), signals through the signal rules. Replies clients read (errors, tokens, credentials, sessions,
/// stream lists) must survive re-encoding. Every refusal must be a 1011 ``ProtocolError``.
public func fuzzRESTBody(_ data: UnsafeRawBufferPointer) {
    guard let selector = data.first else { return }
    let body = Array(data.dropFirst())
    switch selector % 8 {
    case 0: _ = roundTrip(CreateSessionRequest.self, body)
    case 1:
        guard let request = roundTrip(TokenRequest.self, body) else { return }
        for now in FuzzTokens.nows {
            do throws(ProtocolError) {
                let expiry = try Validation.tokenExpiry(request.expireTime, now: now)
                let lifetime = expiry.subtractingReportingOverflow(now)
                precondition(expiry > now && !lifetime.overflow, "expiry not after now")
                precondition(lifetime.partialValue <= ProtocolLimits.maxTokenLifetime, "lifetime over the limit")
                precondition(request.expireTime == nil || request.expireTime == expiry, "expiry changed")
            } catch {
                precondition(error.code == .invalidParameter, "token request refused with \(error)")
            }
        }
        do throws(ProtocolError) { try Validation.connectionData(request.data ?? "") } catch {
            precondition(error.code == .invalidParameter)
        }
    case 2:
        guard let signal = roundTrip(RestSignal.self, body) else { return }
        do throws(ProtocolError) {
            try Validation.signalType(signal.type ?? "")
            try Validation.signalData(signal.data ?? "")
        } catch {
            precondition(error.code == .invalidSignalType || error.code == .signalDataTooLong, "signal: \(error)")
        }
    case 3: _ = roundTrip(RestError.self, body)
    case 4: _ = roundTrip(IssuedToken.self, body)
    case 5: _ = roundTrip(SessionCredentials.self, body)
    case 6: _ = roundTrip(SessionDescription.self, body)
    default: _ = roundTrip(StreamList.self, body)
    }
}

/// Decodes `bytes` as `T`; a decoded value must re-encode to JSON that decodes to the same value.
private func roundTrip<T: Codable & Equatable>(_ type: T.Type, _ bytes: [UInt8]) -> T? {
    let value: T
    do throws(ProtocolError) {
        value = try WireCodec.decode(type, from: bytes)
    } catch {
        precondition(error.code == .invalidParameter, "\(type) refused with \(error)")
        return nil
    }
    let again = try? WireCodec.decode(type, from: WireCodec.encode(value))
    precondition(again == value, "\(type) does not survive re-encoding")
    return value
}
