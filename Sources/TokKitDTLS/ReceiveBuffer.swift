/// One preallocated datagram-sized buffer that received media is decrypted into.
///
/// Threading: used only on the ICE network thread (receive callbacks are serial there), hence
/// `@unchecked Sendable`; freed with its owner.
final class ReceiveBuffer: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer

    init(capacity: Int) {
        bytes = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { bytes.deallocate() }
}
