// renderers-bench: per-frame cost of the generated and file sources and of the renderers (medians).
//
//   swift build -c release --product renderers-bench && .build/release/renderers-bench [WxH]
import Synchronization
import TokKitCapture

#if canImport(Glibc)
import Glibc
#endif

let size = CommandLine.arguments.dropFirst().first?.split(separator: "x").compactMap { Int($0) } ?? []
let (width, height) = size.count == 2 ? (size[0], size[1]) : (640, 480)
let directory = "/tmp/renderers-bench-\(getpid())"
mkdir(directory, 0o755)

func threadCPU() -> Duration {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return .seconds(ts.tv_sec) + .nanoseconds(ts.tv_nsec)
}

/// Median wall time of `body` over `runs` runs, after 3 warm-ups.
func median(_ runs: Int = 50, _ body: () throws -> Void) rethrows -> Duration {
    for _ in 0..<3 { try body() }
    var times: [Duration] = []
    for _ in 0..<runs {
        let start = MonotonicClock.now()
        try body()
        times.append(MonotonicClock.now() - start)
    }
    return times.sorted()[runs / 2]
}

func report(_ name: String, _ d: Duration, bytes: Int? = nil) {
    let us = d.seconds * 1e6
    var line = name.padded(to: 44) + String(Int(us.rounded())) + " µs"
    if let bytes { line += "  (\(Int((Double(bytes) / d.seconds / 1e6).rounded())) MB/s)" }
    print(line)
}

extension String {
    func padded(to n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }
}

print("renderers-bench \(width)x\(height), medians")

// Noise: CPU time of the capture thread per frame (fill + hand-over), measured on that thread.
final class CPUMeter: VideoCaptureConsumer {
    let state = Mutex<(frames: Int, first: Duration, last: Duration)>((0, .zero, .zero))
    func consumeFrame(_ frame: VideoFrame) {
        let now = threadCPU()
        state.withLock { s in
            if s.frames == 0 { s.first = now }
            s.last = now
            s.frames += 1
        }
    }
}
let meter = CPUMeter()
let noise = NoiseCapturer(width: width, height: height, framesPerSecond: 1000)
noise.videoCaptureConsumer = meter
try noise.initCapture()
try noise.startCapture()
while meter.state.withLock({ $0.frames }) < 300 { usleep(10_000) }
noise.releaseCapture()
let cpu = meter.state.withLock { ($0.last - $0.first) / ($0.frames - 1) }
report("NoiseCapturer, capture-thread CPU/frame", cpu, bytes: width * height * 4)

// A pattern I420 frame.
let chroma = ((width + 1) / 2) * ((height + 1) / 2)
let frame = try VideoFrame(
    format: .i420(width: width, height: height),
    copying: [
        (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0 &* 7) },
        [UInt8](repeating: 100, count: chroma), [UInt8](repeating: 150, count: chroma),
    ])

let gray = GrayscaleRenderer()
report("GrayscaleRenderer.renderVideoFrame", median(200) { gray.renderVideoFrame(frame) }, bytes: width * height)
let image = gray.lastImage()!
report("PNGWriter gray encode", try median { _ = try image.encoded(as: .png) }, bytes: width * height)
let rgb = image.rgbPixels()
report("PNGWriter RGB encode", try median { _ = try PNGWriter.encode(width: width, height: height, color: .rgb, pixels: rgb) }, bytes: rgb.count)
report("PGMWriter encode", try median { _ = try image.encoded(as: .pgm) }, bytes: width * height)

let y4m = directory + "/bench.y4m"
let writer = try Y4MWriter(path: y4m)
try writer.writeHeader(Y4MStreamHeader(width: width, height: height, frameRate: .init(30, 1)))
report("Y4MWriter.write (page cache)", try median(200) { try writer.write(frame) }, bytes: frame.format.minimumFrameSize)
try writer.close()
let reader = try Y4MReader(path: y4m)
report("Y4MReader.readFrame (page cache)", try median(200) { if try !reader.readFrame() { try reader.rewind() } }, bytes: frame.format.minimumFrameSize)

// The caller's share (convert/copy into the pool, queue): a queue deep enough never to wait for the disk.
let shallow = try FileRenderer(path: directory + "/rec.y4m", queueDepth: 64)
report("FileRenderer.renderVideoFrame, queue free", median(50) { shallow.renderVideoFrame(frame) })
try shallow.close()
// Sustained, waiting for the disk: the default queue fills, so this is the disk's (page cache's) pace.
let sustained = try FileRenderer(path: directory + "/rec.y4m", queuePolicy: .waitForDisk)
report("FileRenderer.renderVideoFrame, sustained, wait for disk", median(200) { sustained.renderVideoFrame(frame) })
try sustained.close()
// Sustained, newest wins (the default): the caller never waits; frames the disk cannot take are skipped.
let newest = try FileRenderer(path: directory + "/rec.y4m")
report("FileRenderer.renderVideoFrame, sustained, newest wins", median(200) { newest.renderVideoFrame(frame) })
try newest.close()
print("  newest wins: \(newest.framesSkipped) of \(newest.framesReceived) frames skipped")

for name in ["bench.y4m", "rec.y4m"] { unlink(directory + "/" + name) }
rmdir(directory)
