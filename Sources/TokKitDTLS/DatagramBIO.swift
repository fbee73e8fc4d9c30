import COpenSSL

/// The datagram side of one DTLS connection as its custom BIO sees it: the one datagram OpenSSL may read
/// next, and where written records go. Each `BIO_write` is one outgoing datagram and each `BIO_read` returns
/// at most the one incoming datagram, so records are never merged (OpenSSL 3.0's memory BIO would).
///
/// Threading: touched only from inside `SSL_*` calls, which ``DTLSTransport`` makes under its lock.
final class DatagramIO {
    /// The datagram being fed to OpenSSL, consumed by the next read.
    var incoming: UnsafeRawBufferPointer?
    /// Sends one datagram (to ICE).
    let send: (UnsafeRawBufferPointer) -> Void

    init(send: @escaping (UnsafeRawBufferPointer) -> Void) { self.send = send }
}

/// Creates BIOs bound to a ``DatagramIO``.
enum DatagramBIO {
    /// A new BIO reading and writing through `io` (held unretained: the caller keeps `io` alive as long as
    /// the BIO).
    static func make(_ io: DatagramIO) throws(DTLSError) -> OpaquePointer {
        guard let method = datagramMethod.pointer, let bio = BIO_new(method) else {
            throw OpenSSLError.error("BIO_new")
        }
        BIO_set_data(bio, Unmanaged.passUnretained(io).toOpaque())
        BIO_set_init(bio, 1)
        return bio
    }
}

/// The process-wide `BIO_METHOD` (created once, never freed, read-only afterwards).
private struct MethodHandle: @unchecked Sendable {
    let pointer: OpaquePointer?
}

private let datagramMethod: MethodHandle = {
    guard let m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "tokkit-datagram") else {
        return MethodHandle(pointer: nil)
    }
    _ = BIO_meth_set_write(m, bioWrite)
    _ = BIO_meth_set_read(m, bioRead)
    _ = BIO_meth_set_ctrl(m, bioCtrl)
    _ = BIO_meth_set_create(m, bioCreate)
    return MethodHandle(pointer: m)
}()

@inline(__always)
private func io(_ bio: OpaquePointer?) -> DatagramIO {
    Unmanaged<DatagramIO>.fromOpaque(BIO_get_data(bio)!).takeUnretainedValue()
}

private let bioWrite: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { bio, data, length in
    guard let data, length > 0 else { return 0 }
    io(bio).send(UnsafeRawBufferPointer(start: data, count: Int(length)))
    return length
}

private let bioRead: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int32) -> Int32 = { bio, out, capacity in
    tk_bio_clear_retry_flags(bio)
    let state = io(bio)
    guard let datagram = state.incoming, let out, capacity > 0 else {
        tk_bio_set_retry_read(bio)
        return -1
    }
    state.incoming = nil
    let n = min(datagram.count, Int(capacity))  // a datagram longer than the buffer is truncated, as UDP does
    if n > 0, let base = datagram.baseAddress { UnsafeMutableRawPointer(out).copyMemory(from: base, byteCount: n) }
    return Int32(n)
}

private let bioCtrl: @convention(c) (OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int = { _, command, _, _ in
    switch command {
    case BIO_CTRL_FLUSH: 1
    case BIO_CTRL_PENDING, BIO_CTRL_WPENDING, BIO_CTRL_DGRAM_GET_MTU_OVERHEAD: 0
    default: 0
    }
}

private let bioCreate: @convention(c) (OpaquePointer?) -> Int32 = { _ in 1 }
