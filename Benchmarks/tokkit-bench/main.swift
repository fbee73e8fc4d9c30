// TokKit frame-path benchmark: TokKit's conversions against raw libyuv calls on the same buffers, in one run.
//
// For each case, rounds alternate between the two paths; the figure is the median time per frame over rounds.
// The TokKit path is what a capturer and a publisher do per frame: lend the capturer's memory as a borrowed
// VideoFrame through its FrameLease (revoked when the call returns), take a destination frame from a pool, convert
// into it with VideoConverter (which enters the lease to read the source). Heap allocations per
// frame are counted by interposing malloc over both paths: libyuv itself allocates a row buffer in some
// conversions (ARGBToNV12), so the figure that matters is what TokKit adds. Times are the thread's CPU time.
//
// Usage: swift run -c release tokkit-bench [--frames N] [--rounds R]
import CMallocCounter
import CYUV
import Foundation
import TokKitMedia

struct Case {
    let name: String
    let source: PixelFormat
    let target: PixelFormat
    let width: Int
    let height: Int
}

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let v = Int(arguments[i + 1]) else { return fallback }
    return v
}
let framesPerRound = option("--frames", 200)
let rounds = option("--rounds", 9)

let cases = [
    Case(name: "ARGB→I420", source: .argb, target: .i420, width: 640, height: 480),
    Case(name: "ARGB→NV12", source: .argb, target: .nv12, width: 640, height: 480),
    Case(name: "NV12→I420", source: .nv12, target: .i420, width: 640, height: 480),
    Case(name: "ARGB→I420", source: .argb, target: .i420, width: 1280, height: 720),
    Case(name: "ARGB→NV12", source: .argb, target: .nv12, width: 1280, height: 720),
    Case(name: "NV12→I420", source: .nv12, target: .i420, width: 1280, height: 720),
]

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

/// CPU time of the calling thread: unlike wall time it does not count preemption, so figures stay
/// comparable on a loaded machine.
func threadCPUTime() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// CPU nanoseconds per frame for `body` run `framesPerRound` times.
@inline(never)
func timeRound(_ body: () -> Void) -> Double {
    let start = threadCPUTime()
    for _ in 0..<framesPerRound { body() }
    return Double(threadCPUTime() - start) / Double(framesPerRound)
}

print("TokKit frame path vs raw libyuv (\(rounds) rounds × \(framesPerRound) frames, medians)")
print("case                 size        raw libyuv   TokKit      throughput ratio   allocs/frame libyuv  added by TokKit")
var worstRatio = Double.infinity
var worstAllocs = 0.0
for c in cases {
    let srcFormat = VideoFormat(pixelFormat: c.source, width: c.width, height: c.height)
    let dstFormat = VideoFormat(pixelFormat: c.target, width: c.width, height: c.height)
    // One contiguous buffer per side, shared by both paths.
    let src = UnsafeMutableRawBufferPointer.allocate(byteCount: srcFormat.minimumFrameSize, alignment: 64)
    let dst = UnsafeMutableRawBufferPointer.allocate(byteCount: dstFormat.minimumFrameSize, alignment: 64)
    defer { src.deallocate(); dst.deallocate() }
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    for i in 0..<src.count {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        src[i] = UInt8(truncatingIfNeeded: seed >> 56)
    }
    let s = src.baseAddress!.assumingMemoryBound(to: UInt8.self)
    let d = dst.baseAddress!.assumingMemoryBound(to: UInt8.self)
    let w = Int32(c.width), h = Int32(c.height)
    let yBytes = c.width * c.height, cw = (c.width + 1) / 2, chBytes = cw * ((c.height + 1) / 2)

    let raw: () -> Void
    switch (c.source, c.target) {
    case (.argb, .i420): raw = { _ = ARGBToI420(s, w * 4, d, w, d + yBytes, Int32(cw), d + yBytes + chBytes, Int32(cw), w, h) }
    case (.argb, .nv12): raw = { _ = ARGBToNV12(s, w * 4, d, w, d + yBytes, Int32(cw * 2), w, h) }
    default: raw = { _ = NV12ToI420(s, w, s + yBytes, Int32(cw * 2), d, w, d + yBytes, Int32(cw), d + yBytes + chBytes, Int32(cw), w, h) }
    }

    let converter = VideoConverter(pool: VideoFramePool(capacity: 2))
    let planes = c.source == .nv12
        ? (UnsafeRawBufferPointer(rebasing: src[0..<yBytes]), UnsafeRawBufferPointer?(UnsafeRawBufferPointer(rebasing: src[yBytes...])))
        : (UnsafeRawBufferPointer(src), nil)
    var failures = 0
    let lease = FrameLease()  // one per source, as a capturer keeps one
    let tokkit: () -> Void = {
        do {
            try lease.lend(format: srcFormat, borrowing: planes.0, planes.1, timestamp: .zero) {
                (frame) throws(VideoFrameError) in
                let out = try converter.pool.makeFrame(format: dstFormat, timestamp: frame.timestamp)
                try converter.convert(frame, into: out)
            }
        } catch {
            failures += 1
        }
    }

    // Warm up both paths (page faults, pool fill, CPU dispatch).
    _ = timeRound(raw)
    _ = timeRound(tokkit)
    var rawTimes: [Double] = [], tokkitTimes: [Double] = []
    var rawAllocations: UInt64 = 0, tokkitAllocations: UInt64 = 0
    for _ in 0..<rounds {
        var before = tk_malloc_count()
        rawTimes.append(timeRound(raw))
        rawAllocations += tk_malloc_count() - before
        before = tk_malloc_count()
        tokkitTimes.append(timeRound(tokkit))
        tokkitAllocations += tk_malloc_count() - before
    }
    precondition(failures == 0, "\(failures) TokKit conversions failed")
    let r = median(rawTimes), t = median(tokkitTimes)
    let ratio = r / t
    let frames = Double(rounds * framesPerRound)
    let libyuvPerFrame = Double(rawAllocations) / frames
    let perFrame = (Double(tokkitAllocations) - Double(rawAllocations)) / frames
    worstRatio = min(worstRatio, ratio)
    worstAllocs = max(worstAllocs, perFrame)
    let label = c.name.padding(toLength: 20, withPad: " ", startingAt: 0)
    let size = "\(c.width)x\(c.height)".padding(toLength: 11, withPad: " ", startingAt: 0)
    print(String(format: "%@ %@ %7.1f µs   %7.1f µs    %.3f×             %.3f                %.3f", label, size, r / 1000, t / 1000, ratio, libyuvPerFrame, perFrame))
}
print(String(format: "worst throughput ratio %.3f× (goal ≥ 0.90×), most allocations per frame added by TokKit %.3f (goal 0)", worstRatio, worstAllocs))
