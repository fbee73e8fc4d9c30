import TokKitRTP

/// Fuzz entry for the VP8 payload format (``VP8PayloadDescriptor``, ``VP8PayloadHeader``) and
/// ``VP8FrameAssembler``.
///
/// The whole input is first parsed as one descriptor: a parsed descriptor must write back to the same length and
/// parse to the same value. Then the input is cut into packets, each `|seq delta|flags|length|payload...|` (flags
/// bit 0: marker, bits 1-2: timestamp step in frames), and fed to a small assembler (16 packets, 4 KB frames); every
/// event is drained. Traps only when an invariant breaks; malformed input must end in a typed error.
public func fuzzVP8(_ data: UnsafeRawBufferPointer) {
    checkDescriptorRoundTrip(data)
    guard let assembler = try? VP8FrameAssembler(.init(maximumPackets: 16, maximumPacketPayload: 256,
                                                       maximumFrameSize: 4096, maximumWait: 9000,
                                                       keyFrameRequestInterval: 3000))
    else { preconditionFailure("valid assembler configuration rejected") }
    var offset = 0
    var sequence: UInt16 = 65_530
    var timestamp: UInt32 = 0xFFFF_F000
    var packets = 0
    while offset + 3 <= data.count, packets < 512 {
        sequence &+= UInt16(data[offset]) &- 8  // mostly forward, sometimes back (reordering, duplicates)
        let flags = data[offset + 1]
        timestamp &+= UInt32((flags >> 1) & 0x03) * 3000
        let length = min(Int(data[offset + 2]), data.count - offset - 3)
        let payload = UnsafeRawBufferPointer(rebasing: data[(offset + 3)..<(offset + 3 + length)])
        offset += 3 + length
        packets += 1
        do throws(RTPError) {
            _ = try assembler.insert(sequenceNumber: sequence, timestamp: timestamp, marker: flags & 1 != 0,
                                     payload: payload)
        } catch {
            _ = error.description
        }
        var events = 0
        while let event = assembler.next() {
            events += 1
            precondition(events <= 64, "next() does not run dry")
            if case .frame(let frame) = event {
                precondition(frame.bytes.count >= 1 && frame.bytes.count <= 4096, "frame size out of bounds")
                precondition(frame.packetCount >= 1 && frame.packetCount <= 16, "frame packet count out of bounds")
                _ = frame.header
                _ = frame.bytes.reduce(0) { $0 &+ Int($1) }
            }
        }
    }
    let c = assembler.counters
    precondition(c.framesAssembled >= 0 && c.packetsInvalid <= packets)
}

/// A descriptor that parses writes back to its own length and parses again to the same value.
private func checkDescriptorRoundTrip(_ data: UnsafeRawBufferPointer) {
    let descriptor: VP8PayloadDescriptor
    do throws(RTPError) {
        descriptor = try VP8PayloadDescriptor(parsing: data)
    } catch {
        _ = error.description
        return
    }
    if data.count > descriptor.serializedLength {
        _ = try? VP8PayloadHeader(parsing: UnsafeRawBufferPointer(rebasing: data[descriptor.serializedLength...]))
    }
    withUnsafeTemporaryAllocation(byteCount: 8, alignment: 8) { buffer in
        let length: Int
        do throws(RTPError) {
            length = try descriptor.write(into: buffer)
        } catch {
            preconditionFailure("a parsed descriptor failed to serialize: \(error)")
        }
        precondition(length == descriptor.serializedLength, "descriptor length round trip")
        let again = try? VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(rebasing: buffer[..<length]))
        precondition(again == descriptor, "descriptor round trip")
    }
}
