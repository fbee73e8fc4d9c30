/// An owned RTP header, for building packets (RFC 3550 §5.1, extensions RFC 8285 §4).
///
/// Keep one per outgoing stream and mutate it per packet (sequence number, timestamp, marker, extension values):
/// ``write(into:)`` and ``write(payload:paddingLength:into:)`` serialize into a caller-provided buffer and allocate
/// nothing. Extensions are written in the one-byte form when every element fits it, otherwise in the two-byte form
/// (RFC 8285 §4.1.2). A plain value: use it from one thread at a time.
public struct RTPHeader: Hashable, Sendable {
    public var marker: Bool
    /// Payload type, 0-127.
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// Contributing sources, at most 15.
    public var csrcs: [UInt32]
    /// RFC 8285 elements, written in this order.
    public var extensions: [RTPHeaderExtension]

    public init(
        marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        csrcs: [UInt32] = [], extensions: [RTPHeaderExtension] = []
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.extensions = extensions
    }

    /// Copies the header of a received packet. RFC 8285 elements are kept; an opaque extension block is dropped.
    public init(_ view: RTPPacketView) {
        self.init(
            marker: view.marker, payloadType: view.payloadType, sequenceNumber: view.sequenceNumber,
            timestamp: view.timestamp, ssrc: view.ssrc,
            csrcs: (0 ..< view.csrcCount).map { view.csrc(at: $0) ?? 0 },
            extensions: view.extensions.map { RTPHeaderExtension(id: $0.id, value: Array($0.value)) })
    }

    /// Sets (or adds) the element with local identifier `id`, reusing its storage when the length is unchanged.
    public mutating func setExtension(id: UInt8, _ value: some Collection<UInt8>) {
        if let index = extensions.firstIndex(where: { $0.id == id }) {
            if extensions[index].value.count == value.count {
                extensions[index].value.withUnsafeMutableBufferPointer { target in
                    for (i, byte) in value.enumerated() { target[i] = byte }
                }
            } else {
                extensions[index].value = Array(value)
            }
        } else {
            extensions.append(RTPHeaderExtension(id: id, value: Array(value)))
        }
    }

    /// The extension form this header is written with, `nil` when it has no extensions.
    public var extensionForm: RTPHeaderExtensionForm? {
        if extensions.isEmpty { return nil }
        return extensions.allSatisfy(\.fitsOneByteForm) ? .oneByte : .twoByte(appBits: 0)
    }

    /// Bytes ``write(into:)`` produces: fixed header, CSRCs and the extension block padded to 32 bits.
    public var serializedLength: Int {
        RTPPacketView.fixedHeaderLength + 4 * csrcs.count + (extensionForm == nil ? 0 : 4 + extensionBodyLength)
    }

    /// Extension elements plus padding to a multiple of four bytes.
    private var extensionBodyLength: Int {
        let perElement = extensionForm == .oneByte ? 1 : 2
        var total = 0
        for e in extensions { total += perElement + e.value.count }
        return (total + 3) & ~3
    }

    /// Checks every field against what the wire format can carry.
    public func validate() throws(RTPError) {
        guard payloadType <= 127 else { throw .valueOutOfRange(field: "payload type", value: Int(payloadType)) }
        guard csrcs.count <= 15 else { throw .valueOutOfRange(field: "CSRC count", value: csrcs.count) }
        for e in extensions {
            guard e.id != 0 else { throw .valueOutOfRange(field: "extension id", value: 0) }
            guard e.value.count <= 255 else { throw .valueOutOfRange(field: "extension length", value: e.value.count) }
        }
        if extensionBodyLength / 4 > Int(UInt16.max) {
            throw .valueOutOfRange(field: "extension block words", value: extensionBodyLength / 4)
        }
    }

    /// Writes the header (with `hasPadding` as the P bit) to the start of `buffer`; returns the bytes written.
    @discardableResult
    public func write(into buffer: UnsafeMutableRawBufferPointer, hasPadding: Bool = false) throws(RTPError) -> Int {
        try validate()
        let length = serializedLength
        try requireSpace(length, buffer)
        let form = extensionForm
        buffer.put8(2 << 6 | (hasPadding ? 0x20 : 0) | (form == nil ? 0 : 0x10) | UInt8(csrcs.count), at: 0)
        buffer.put8((marker ? 0x80 : 0) | payloadType, at: 1)
        buffer.put16(sequenceNumber, at: 2)
        buffer.put32(timestamp, at: 4)
        buffer.put32(ssrc, at: 8)
        var offset = RTPPacketView.fixedHeaderLength
        for csrc in csrcs {
            buffer.put32(csrc, at: offset)
            offset += 4
        }
        guard let form else { return offset }
        let body = extensionBodyLength
        buffer.put16(form.profile, at: offset)
        buffer.put16(UInt16(body / 4), at: offset + 2)
        offset += 4
        let end = offset + body
        for e in extensions {
            if form == .oneByte {
                buffer.put8(e.id << 4 | UInt8(e.value.count - 1), at: offset)
                offset += 1
            } else {
                buffer.put8(e.id, at: offset)
                buffer.put8(UInt8(e.value.count), at: offset + 1)
                offset += 2
            }
            e.value.withUnsafeBytes { buffer.put($0, at: offset) }
            offset += e.value.count
        }
        buffer.zero(offset, end - offset)
        return end
    }

    /// Writes a whole packet: header, `payload`, then `paddingLength` bytes of padding (0-255; RFC 3550 §5.1 puts
    /// the count in the last byte). Returns the packet length.
    public func write(
        payload: UnsafeRawBufferPointer, paddingLength: Int = 0, into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPError) -> Int {
        guard (0...255).contains(paddingLength) else {
            throw .valueOutOfRange(field: "padding length", value: paddingLength)
        }
        let total = serializedLength + payload.count + paddingLength
        try requireSpace(total, buffer)
        var offset = try write(into: buffer, hasPadding: paddingLength > 0)
        buffer.put(payload, at: offset)
        offset += payload.count
        if paddingLength > 0 {
            buffer.zero(offset, paddingLength - 1)
            buffer.put8(UInt8(paddingLength), at: total - 1)
        }
        return total
    }
}
