import CV4L2
import Synchronization

/// The body of a camera's capture thread: wait for a filled buffer, take the newest, convert it into a
/// pooled frame, give the buffer back, hand the frame to the consumer.
///
/// Each round: `poll` (bounded by ``pollTimeout``; `STREAMOFF` from ``CameraSession/requestStop()`` wakes
/// it at once), then `VIDIOC_DQBUF` until `EAGAIN`, requeueing all but the newest buffer (newest frame wins:
/// a late consumer gets the latest image, not a backlog). Frames flagged `V4L2_BUF_FLAG_ERROR`, short
/// frames, undecodable JPEGs and frames finding the pool full are dropped and counted; the loop goes on.
/// Any other failure ends the loop with a typed error (`ENODEV`: ``VideoCaptureError/deviceUnplugged(_:)``).
///
/// One loop object per start: its stop flag belongs to that run only, so a run stopped from inside its own
/// consumer callback can never be revived by a later start.
///
/// ``run()`` runs on the capture thread only. In steady state it allocates nothing: the `v4l2_buffer` lives
/// on the stack, frames come from the session's pool, the consumer is read under a lock. ``requestStop()``
/// and ``requestReleaseOnExit()`` may be called from any thread.
final class CameraCaptureLoop: Sendable {
    /// The longest a `poll` waits before the loop looks at its stop flag again.
    static let pollTimeout: Duration = .milliseconds(100)

    let session: CameraSession
    private let output: CameraOutput
    private let stopRequested = Atomic<Bool>(false)
    private let releaseOnExit = Atomic<Bool>(false)
    /// Lends the dequeued buffer to the converter; revoked before the buffer is queued back to the driver.
    private let lease = FrameLease()

    init(session: CameraSession, output: CameraOutput) {
        self.session = session
        self.output = output
    }

    /// Whether the loop should end.
    var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    /// Whether the loop's thread must release the session once the loop ends.
    var shouldReleaseOnExit: Bool { releaseOnExit.load(ordering: .acquiring) }

    /// Asks the loop to end and wakes it at once: `STREAMOFF` makes a waiting `poll` return.
    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        session.streamOff()
    }

    /// Asks the loop to end and its thread to release the session afterwards (release requested from inside
    /// a consumer callback, on the capture thread itself, which cannot be joined).
    func requestReleaseOnExit() {
        releaseOnExit.store(true, ordering: .releasing)
        requestStop()
    }

    /// Runs until asked to stop (returns nil) or until the device fails (returns why).
    func run() -> VideoCaptureError? {
        let driver = session.driver, fd = session.fd, path = session.path
        let bufferCount = session.buffers.count
        while !isStopRequested {
            let events: V4L2PollEvents
            do { events = try driver.poll(fd, timeout: Self.pollTimeout) } catch {
                return isStopRequested ? nil : .v4l2(error, "poll", path: path)
            }
            if isStopRequested { return nil }
            if events.isEmpty { continue }
            if events.contains(.invalid) { return .v4l2(.badFileDescriptor, "poll", path: path) }

            // Dequeue everything ready; keep the newest.
            var newest = v4l2_buffer()
            var haveNewest = false
            for _ in 0...bufferCount {
                var buf = v4l2_buffer()
                buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
                buf.memory = V4L2_MEMORY_MMAP.rawValue
                do { try driver.ioctl(fd, .dequeueBuffer, &buf) } catch {
                    if error == .again { break }
                    return isStopRequested ? nil : .v4l2(error, "VIDIOC_DQBUF", path: path)
                }
                if haveNewest {
                    output.dropped.add(1, ordering: .relaxed)
                    do { try session.queue(newest.index) } catch { return fail(error, "VIDIOC_QBUF") }
                }
                newest = buf
                haveNewest = true
            }
            guard haveNewest else {
                // POLLERR while streaming with nothing to dequeue: the queue is in error; do not spin on it.
                if events.contains(.error) { return isStopRequested ? nil : .v4l2(.io, "poll", path: path) }
                continue
            }
            guard Int(newest.index) < bufferCount else { return fail(.invalidArgument, "VIDIOC_DQBUF") }

            let frame = convert(newest)
            do { try session.queue(newest.index) } catch { return fail(error, "VIDIOC_QBUF") }
            guard let frame else {
                output.dropped.add(1, ordering: .relaxed)
                continue
            }
            if let consumer = output.consumer.withLock({ $0 }) {
                consumer.consumeFrame(frame)
                output.delivered.add(1, ordering: .relaxed)
            }
        }
        return nil
    }

    private func fail(_ error: V4L2Errno, _ operation: String) -> VideoCaptureError? {
        isStopRequested ? nil : .v4l2(error, operation, path: session.path)
    }

    /// The dequeued buffer converted into a pooled frame in the output format, or nil to drop it.
    private func convert(_ buf: v4l2_buffer) -> VideoFrame? {
        if buf.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 { return nil }
        let mapped = session.buffers[Int(buf.index)]
        let format = session.sourceFormat
        let used = buf.bytesused == 0 && !format.pixelFormat.isCompressed ? mapped.length : Int(buf.bytesused)
        guard used <= mapped.length, used >= session.sourceFrameSize else { return nil }

        let timestamp: Duration = buf.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
            ? .seconds(buf.timestamp.tv_sec) + .microseconds(buf.timestamp.tv_usec)
            : MonotonicClock.now()

        let base = UnsafeRawPointer(mapped.address)
        func plane(_ offset: Int, _ count: Int) -> UnsafeRawBufferPointer { .init(start: base + offset, count: count) }
        let planes: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?, UnsafeRawBufferPointer?)
        switch format.pixelFormat {
        case .mjpeg:
            planes = (plane(0, used), nil, nil)
        case .nv12:
            let y = format.minimumSize(ofPlane: 0)
            planes = (plane(0, y), plane(y, format.minimumSize(ofPlane: 1)), nil)
        case .i420:
            let y = format.minimumSize(ofPlane: 0), u = format.minimumSize(ofPlane: 1)
            planes = (plane(0, y), plane(y, u), plane(y + u, format.minimumSize(ofPlane: 2)))
        default:
            planes = (plane(0, format.minimumSize(ofPlane: 0)), nil, nil)
        }
        let target = session.outputFormat.pixelFormat
        return try? lease.lend(format: format, borrowing: planes.0, planes.1, planes.2, timestamp: timestamp) {
            (source) throws(VideoFrameError) in try session.converter.convert(source, to: target)
        }
    }
}

/// Where a ``CameraCapturer``'s frames go, and how many went: the consumer (set by the control thread, read
/// by the capture thread for each frame) and the delivered/dropped counts (written by the capture thread).
/// Any thread.
final class CameraOutput: Sendable {
    let consumer = Mutex<(any VideoCaptureConsumer)?>(nil)
    let delivered = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)
}
