import TokKitProtocol

/// Fuzz entry for the client-to-server WebSocket messages (every ``ClientMessage`` type, with ``ClientRequest``'s
/// `rid`): the input is one text message as the server's reader hands it to ``WireCodec/decodeRequest(_:)``.
///
/// A refused message must be a 1011 ``WireCodec/RequestFailure`` (the server answers it and keeps the socket); an
/// accepted one must re-encode to JSON that decodes to the same request, and then goes through every
/// ``Validation`` rule the server applies to that message (typed errors only). ``RequestIDScanner`` (the `rid` of a
/// message the decoder refuses) runs on every input.
public func fuzzClientMessage(_ data: UnsafeRawBufferPointer) {
    let bytes = Array(data)
    _ = RequestIDScanner.rid(in: bytes)
    let request: ClientRequest
    switch WireCodec.decodeRequest(bytes) {
    case let .success(decoded):
        request = decoded
    case let .failure(failure):
        precondition(failure.error.code == .invalidParameter, "refused with \(failure.error)")
        return
    }
    precondition(bytes.count <= ProtocolLimits.maxFrameBytes, "a message over the size limit decoded")
    // Not decodeRequest: re-encoding may grow the text (JSONEncoder escapes "/") past the frame limit.
    let again = try? WireCodec.decode(ClientRequest.self, from: WireCodec.encode(request))
    precondition(again == request, "\(request.message.type) does not survive re-encoding")
    validateAsTheServerDoes(request.message)
}

/// The ``Validation`` rules SessionRegistry applies per message type (Docs/Protocol.md, 2 and 6.3).
private func validateAsTheServerDoes(_ message: ClientMessage) {
    func check(_ rule: () throws(ProtocolError) -> Void) {
        do throws(ProtocolError) { try rule() } catch { _ = error.description }
    }
    switch message {
    case let .connect(connect):
        _ = ProtocolVersion.supported.contains(connect.version)
        check { () throws(ProtocolError) in _ = try CompactToken(parsing: connect.token) }
    case let .resume(resume):
        _ = ProtocolVersion.supported.contains(resume.version)
    case let .publish(publish):
        check { () throws(ProtocolError) in try Validation.streamName(publish.name) }
        check { () throws(ProtocolError) in try Validation.videoDimensions(publish.videoDimensions) }
    case let .updateStream(update):
        check { () throws(ProtocolError) in try Validation.videoDimensions(update.videoDimensions) }
    case let .subscriberPreferences(preferences):
        check { () throws(ProtocolError) in try Validation.videoDimensions(preferences.preferredResolution) }
    case let .negotiation(negotiation):
        check { () throws(ProtocolError) in try Validation.negotiationPayload(negotiation.payload) }
    case let .signal(signal):
        check { () throws(ProtocolError) in try Validation.signalType(signal.type) }
        check { () throws(ProtocolError) in try Validation.signalData(signal.data) }
    case .disconnect, .ping, .unpublish, .subscribe, .unsubscribe, .forceDisconnect, .forceUnpublish, .forceMute:
        break
    }
}
