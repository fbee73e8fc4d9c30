import Foundation

/// Reads a pipe to EOF with blocking reads on a thread of its own, handing each chunk to a closure.
///
/// Threading: `start` from any thread; `chunk` and then `end` run on the reader's thread, in order.
///
/// Never `FileHandle.readabilityHandler`: that arms a libdispatch read source per pipe, and tearing such sources
/// down while others are armed corrupts libdispatch's epoll bookkeeping on Linux (a SIGSEGV in
/// `_dispatch_event_loop_drain`; swift-corelibs-foundation #3276, swift-corelibs-libdispatch #949). A CI run of
/// the whole suite died of it once: the lab runs hundreds of short commands, each with two piped outputs.
public enum PipeReader {
    /// Reads `descriptor` (which it then owns and closes) on a thread named `name`: `chunk` gets every read's
    /// bytes, `end` runs once at EOF or on a read error.
    public static func start(_ descriptor: Int32, name: String,
                             chunk: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
                             end: @escaping @Sendable () -> Void) {
        let thread = Thread {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 1)
            defer { buffer.deallocate() }
            while true {
                let n = read(descriptor, buffer.baseAddress, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                chunk(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            }
            close(descriptor)
            end()
        }
        thread.name = name
        thread.start()
    }

    /// Reads the read end of `pipe` (after the process writing to it was started: Foundation has closed the write
    /// end here by then). The pipe's own handle is closed; the reader works on a duplicate of it.
    public static func start(_ pipe: Pipe, name: String,
                             chunk: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
                             end: @escaping @Sendable () -> Void) {
        let descriptor = dup(pipe.fileHandleForReading.fileDescriptor)
        try? pipe.fileHandleForReading.close()
        guard descriptor >= 0 else { return end() }
        start(descriptor, name: name, chunk: chunk, end: end)
    }
}
