/// One element of an RFC 8285 header extension block, borrowed from a received packet.
///
/// `value` points into the packet's buffer and is valid only as long as that buffer is.
public struct RTPHeaderExtensionElement {
    /// The local identifier negotiated with `a=extmap` (RFC 8285 §5).
    public let id: UInt8
    /// The element's data, without the id/length byte(s).
    public let value: UnsafeRawBufferPointer
}

/// The elements of a validated RFC 8285 extension block, in wire order (RFC 8285 §4.2, §4.3).
///
/// Padding bytes (id 0) are skipped; in the one-byte form, id 15 ends the block (RFC 8285 §4.2). Iteration reads only
/// bytes the packet parser already bounds-checked and allocates nothing. Borrowed: valid while the packet buffer is.
public struct RTPHeaderExtensionElements: Sequence {
    let block: UnsafeRawBufferPointer
    let form: RTPHeaderExtensionForm

    public func makeIterator() -> Iterator { Iterator(block: block, form: form, offset: 0) }

    /// The value of the first element with local identifier `id`, if present.
    public func value(id: UInt8) -> UnsafeRawBufferPointer? {
        for element in self where element.id == id { return element.value }
        return nil
    }

    /// Walks a block once to check that every element lies inside it (RFC 8285 §4.2, §4.3).
    static func validate(_ block: UnsafeRawBufferPointer, form: RTPHeaderExtensionForm) throws(RTPError) {
        var iterator = Iterator(block: block, form: form, offset: 0)
        while try iterator.step() != nil {}
    }

    /// Walks the extension elements in wire order, over the packet's own bytes (no copy); valid while they are.
    public struct Iterator: IteratorProtocol {
        let block: UnsafeRawBufferPointer
        let form: RTPHeaderExtensionForm
        var offset: Int

        public mutating func next() -> RTPHeaderExtensionElement? {
            // The packet parser validated the block, so `step` cannot throw here; stop if it ever did.
            (try? step()) ?? nil
        }

        mutating func step() throws(RTPError) -> RTPHeaderExtensionElement? {
            switch form {
            case .opaque: return nil
            case .oneByte:
                while offset < block.count {
                    let byte = block[offset]
                    let id = byte >> 4
                    if id == 0 { offset += 1; continue }  // padding
                    if id == 15 { offset = block.count; return nil }  // reserved: stop processing
                    let length = Int(byte & 0x0F) + 1
                    let remaining = block.count - offset - 1
                    guard length <= remaining else {
                        throw .extensionElementOverrun(id: id, length: length, remaining: remaining)
                    }
                    defer { offset += 1 + length }
                    return RTPHeaderExtensionElement(id: id, value: block.slice(offset + 1, length))
                }
                return nil
            case .twoByte:
                while offset < block.count {
                    let id = block[offset]
                    if id == 0 { offset += 1; continue }  // padding
                    let remaining = block.count - offset - 2
                    guard remaining >= 0 else { throw .extensionElementOverrun(id: id, length: 1, remaining: remaining + 1) }
                    let length = Int(block[offset + 1])
                    guard length <= remaining else {
                        throw .extensionElementOverrun(id: id, length: length, remaining: remaining)
                    }
                    defer { offset += 2 + length }
                    return RTPHeaderExtensionElement(id: id, value: block.slice(offset + 2, length))
                }
                return nil
            }
        }
    }
}
