import TokKitRTP

/// Fuzz entry for ``RTCPCompoundPacket``: parses `data`; when it parses, serializes it, parses that and serializes
/// again. The second serialization must equal the first (parsing normalizes, e.g. drops profile extensions, but
/// writing what was parsed must be a fixed point).
public func fuzzRTCP(_ data: UnsafeRawBufferPointer) {
    let compound: RTCPCompoundPacket
    do throws(RTPError) {
        compound = try RTCPCompoundPacket(parsing: data)
    } catch {
        _ = error.description
        return
    }
    _ = compound.isReducedSize
    for packet in compound.packets {
        if case let .genericNACK(nack) = packet { _ = nack.lostSequenceNumbers }
        if case let .sourceDescription(sdes) = packet { _ = sdes.chunks.map(\.cname) }
        if case let .transportWideFeedback(feedback) = packet { _ = feedback.arrivals.count }
    }
    do throws(RTPError) {
        let first = try compound.serialized()
        let reparsed = try RTCPCompoundPacket(parsing: first)
        let second = try reparsed.serialized()
        precondition(first == second, "RTCP serialization is not a fixed point")
        precondition(reparsed.packets.count == compound.packets.count, "packet count changed")
    } catch {
        preconditionFailure("parsed RTCP failed to round-trip: \(error)")
    }
}
