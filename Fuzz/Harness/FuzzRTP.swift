import TokKitRTP

/// Fuzz entry for ``RTPPacketView``: parses `data`; when it parses, reads every accessor, copies the header, writes
/// it back and checks that the written packet parses to the same header and payload. Traps only when an invariant
/// is broken (that is what the fuzzer looks for); malformed input must end in a typed error.
public func fuzzRTP(_ data: UnsafeRawBufferPointer) {
    let view: RTPPacketView
    do throws(RTPError) {
        view = try RTPPacketView(parsing: data)
    } catch {
        _ = error.description
        return
    }
    precondition(view.headerLength + view.payloadLength + view.paddingLength == data.count)
    var checksum = Int(view.payloadType) &+ Int(view.sequenceNumber) &+ Int(view.timestamp) &+ Int(view.ssrc)
    for i in 0 ..< view.csrcCount { checksum &+= Int(view.csrc(at: i) ?? 0) }
    for element in view.extensions { checksum &+= Int(element.id) &+ element.value.reduce(0) { $0 &+ Int($1) } }
    let map = RTPHeaderExtensionMap(mid: 1, absoluteSendTime: 2, transportWideCC: 3)
    checksum &+= view.mid(map)?.utf8.count ?? 0
    checksum &+= Int(view.absoluteSendTime(map) ?? 0) &+ Int(view.transportWideSequenceNumber(map) ?? 0)
    checksum &+= view.payload.reduce(0) { $0 &+ Int($1) }
    _ = checksum

    let header = RTPHeader(view)
    var out = [UInt8](repeating: 0, count: data.count + 4096)
    out.withUnsafeMutableBytes { buffer in
        let length: Int
        do throws(RTPError) {
            length = try header.write(payload: view.payload, into: buffer)
        } catch {
            // Only the two-byte form can refuse: an element longer than 255 bytes cannot come from a parse.
            preconditionFailure("a parsed header failed to serialize: \(error)")
        }
        let again: RTPPacketView
        do throws(RTPError) {
            again = try RTPPacketView(parsing: UnsafeRawBufferPointer(rebasing: buffer[..<length]))
        } catch {
            preconditionFailure("a serialized header failed to parse: \(error)")
        }
        precondition(RTPHeader(again) == header, "header round trip")
        precondition(again.payload.elementsEqual(view.payload), "payload round trip")
    }
}
