// Big-endian loads and stores for the parsers and writers of this module. Callers check bounds first; these helpers
// only do the unaligned access and the byte swap, so they stay branch-free on the hot path.

extension UnsafeRawBufferPointer {
    @inline(__always) func u8(_ offset: Int) -> UInt8 { self[offset] }

    @inline(__always) func u16(_ offset: Int) -> UInt16 {
        UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inline(__always) func u24(_ offset: Int) -> UInt32 {
        UInt32(self[offset]) << 16 | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2])
    }

    @inline(__always) func u32(_ offset: Int) -> UInt32 {
        UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always) func u64(_ offset: Int) -> UInt64 {
        UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The bytes `offset ..< offset + count` as a buffer of their own (indices start at zero). Bounds checked by the caller.
    @inline(__always) func slice(_ offset: Int, _ count: Int) -> UnsafeRawBufferPointer {
        count == 0 ? UnsafeRawBufferPointer(start: nil, count: 0)
            : UnsafeRawBufferPointer(rebasing: self[offset ..< offset + count])
    }
}

extension UnsafeMutableRawBufferPointer {
    @inline(__always) func put8(_ value: UInt8, at offset: Int) { self[offset] = value }

    @inline(__always) func put16(_ value: UInt16, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt16.self)
    }

    @inline(__always) func put24(_ value: UInt32, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 16)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 2] = UInt8(truncatingIfNeeded: value)
    }

    @inline(__always) func put32(_ value: UInt32, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }

    @inline(__always) func put64(_ value: UInt64, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt64.self)
    }

    /// Copies `bytes` to `offset`. Bounds checked by the caller.
    @inline(__always) func put(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard bytes.count > 0, let base = baseAddress, let source = bytes.baseAddress else { return }
        (base + offset).copyMemory(from: source, byteCount: bytes.count)
    }

    /// Zeroes `count` bytes from `offset`. Bounds checked by the caller.
    @inline(__always) func zero(_ offset: Int, _ count: Int) {
        guard count > 0, let base = baseAddress else { return }
        (base + offset).initializeMemory(as: UInt8.self, repeating: 0, count: count)
    }
}

/// Throws ``RTPError/truncated(_:needed:available:)`` unless `available >= needed`.
@inline(__always)
func require(_ element: RTPError.Element, _ needed: Int, _ available: Int) throws(RTPError) {
    if available < needed { throw .truncated(element, needed: needed, available: available) }
}

/// Throws ``RTPError/bufferTooSmall(needed:available:)`` unless the destination holds `needed` bytes.
@inline(__always)
func requireSpace(_ needed: Int, _ buffer: UnsafeMutableRawBufferPointer) throws(RTPError) {
    if buffer.count < needed { throw .bufferTooSmall(needed: needed, available: buffer.count) }
}

/// `Array.withUnsafeBytes` for a body with typed throws (the standard library's is `rethrows`).
@inline(__always)
func withBytes<R>(
    of array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(RTPError) -> R
) throws(RTPError) -> R {
    try array.withUnsafeBytes { raw in Result { () throws(RTPError) -> R in try body(raw) } }.get()
}

/// `Array.withUnsafeMutableBytes` for a body with typed throws.
@inline(__always)
func withMutableBytes<R>(
    of array: inout [UInt8], _ body: (UnsafeMutableRawBufferPointer) throws(RTPError) -> R
) throws(RTPError) -> R {
    try array.withUnsafeMutableBytes { raw in Result { () throws(RTPError) -> R in try body(raw) } }.get()
}
