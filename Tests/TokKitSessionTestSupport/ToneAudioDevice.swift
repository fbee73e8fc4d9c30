import Synchronization
import TokKitMedia

/// A test ``AudioDevice``: captures a sine tone (``frequency`` Hz, peak ``amplitude``) and analyses what it is
/// given to play: how many 10 ms periods carried sound above ``threshold`` RMS and, over those, the frequency
/// from zero crossings. Both sides run on their own ``PeriodicThread`` (`tone-capture`, `tone-render`) with
/// preallocated buffers.
///
/// Control calls come from one thread at a time (Mutex-guarded); the readers may be used from any thread.
public final class ToneAudioDevice: AudioDevice {
    public let captureFormat = AudioFormat.voice
    public let renderFormat = AudioFormat.voice
    public let frequency: Double
    public let amplitude: Double
    /// RMS above which a played period counts as sound.
    public let threshold: Double

    private struct Side {
        var initialized = false
        var thread: PeriodicThread?
    }

    private let capture = Mutex(Side())
    private let render = Mutex(Side())
    private let meters = Meters()

    public init(frequency: Double = 440, amplitude: Double = 8_000, threshold: Double = 1_000) {
        self.frequency = frequency
        self.amplitude = amplitude
        self.threshold = threshold
    }

    deinit {
        stopCapture()
        stopRendering()
    }

    /// Periods played so far, and those that carried sound.
    public var periodsRendered: Int { meters.renderedPeriods.load(ordering: .relaxed) }
    public var soundPeriods: Int { meters.loudPeriods.load(ordering: .relaxed) }
    public var periodsCaptured: Int { meters.capturedPeriods.load(ordering: .relaxed) }
    /// The frequency of the sound played so far, from its zero crossings (0 before any sound).
    public var measuredFrequency: Double {
        let loud = soundPeriods
        return loud == 0 ? 0 : Double(meters.crossings.load(ordering: .relaxed)) / 2 / (Double(loud) * 0.01)
    }

    public func resetMeasurements() {
        meters.loudPeriods.store(0, ordering: .relaxed)
        meters.renderedPeriods.store(0, ordering: .relaxed)
        meters.crossings.store(0, ordering: .relaxed)
    }

    public func setAudioBus(_ newBus: (any AudioBus)?) { meters.bus.withLock { $0 = newBus } }

    // MARK: Rendering

    public var isRenderingAvailable: Bool { true }
    public func initializeRendering() throws(AudioDeviceError) { render.withLock { $0.initialized = true } }
    public var isRenderingInitialized: Bool { render.withLock { $0.initialized } }
    public var isRendering: Bool { render.withLock { $0.thread != nil } }
    public var estimatedRenderDelay: Duration { .milliseconds(10) }

    public func startRendering() throws(AudioDeviceError) {
        try render.withLock { s throws(AudioDeviceError) in
            guard s.initialized else { throw .notInitialized }
            guard s.thread == nil else { return }
            let samples = renderFormat.samplesPerPeriod
            let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: samples)
            buffer.initialize(repeating: 0)
            let holder = SampleBuffer(buffer)
            let meters = self.meters, threshold = self.threshold
            s.thread = PeriodicThread(name: "tone-render", interval: AudioFormat.period) {
                let b = holder.buffer
                guard let current = meters.bus.withLock({ $0 }) else { return true }
                current.readRenderData(b)
                var energy = 0.0
                var flips = 0
                for i in 0..<b.count {
                    energy += Double(b[i]) * Double(b[i])
                    if i > 0, (b[i - 1] < 0) != (b[i] < 0) { flips += 1 }
                }
                meters.renderedPeriods.add(1, ordering: .relaxed)
                if (energy / Double(b.count)).squareRoot() > threshold {
                    meters.loudPeriods.add(1, ordering: .relaxed)
                    meters.crossings.add(flips, ordering: .relaxed)
                }
                return true
            }
        }
    }

    public func stopRendering() {
        let t = render.withLock { s in defer { s.thread = nil }; return s.thread }
        t?.stop()
    }

    // MARK: Capture

    public var isCaptureAvailable: Bool { true }
    public func initializeCapture() throws(AudioDeviceError) { capture.withLock { $0.initialized = true } }
    public var isCaptureInitialized: Bool { capture.withLock { $0.initialized } }
    public var isCapturing: Bool { capture.withLock { $0.thread != nil } }
    public var estimatedCaptureDelay: Duration { .milliseconds(10) }

    public func startCapture() throws(AudioDeviceError) {
        try capture.withLock { s throws(AudioDeviceError) in
            guard s.initialized else { throw .notInitialized }
            guard s.thread == nil else { return }
            let format = captureFormat
            let samples = format.samplesPerPeriod
            let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: samples)
            buffer.initialize(repeating: 0)
            let holder = SampleBuffer(buffer)
            let meters = self.meters
            let step = 2 * Double.pi * frequency / Double(format.sampleRate), amplitude = self.amplitude
            s.thread = PeriodicThread(name: "tone-capture", interval: AudioFormat.period) {
                let b = holder.buffer
                var p = holder.phase
                for i in 0..<b.count {
                    b[i] = Int16((amplitude * _sin(p)).rounded())
                    p += step
                    if p > 2 * Double.pi { p -= 2 * Double.pi }
                }
                holder.phase = p
                meters.bus.withLock { $0 }?.writeCaptureData(UnsafeBufferPointer(b))
                meters.capturedPeriods.add(1, ordering: .relaxed)
                return true
            }
        }
    }

    public func stopCapture() {
        let t = capture.withLock { s in defer { s.thread = nil }; return s.thread }
        t?.stop()
    }
}

/// The bus and the counters, shared with the device's threads.
private final class Meters: Sendable {
    let bus = Mutex<(any AudioBus)?>(nil)
    let loudPeriods = Atomic<Int>(0)
    let renderedPeriods = Atomic<Int>(0)
    let crossings = Atomic<Int>(0)
    let capturedPeriods = Atomic<Int>(0)
}

/// Owns one side's sample buffer (and the tone's phase) for the lifetime of its thread; only that thread
/// touches it.
private final class SampleBuffer: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Int16>
    var phase = 0.0
    init(_ buffer: UnsafeMutableBufferPointer<Int16>) { self.buffer = buffer }
    deinit { buffer.deallocate() }
}

/// sin(x) for x in 0...2π, without Foundation (Taylor series after range reduction to ±π/2).
@inline(__always)
func _sin(_ x: Double) -> Double {
    var y = x
    if y > Double.pi { y -= 2 * Double.pi }  // -π...π
    if y > Double.pi / 2 { y = Double.pi - y } else if y < -Double.pi / 2 { y = -Double.pi - y }
    let y2 = y * y
    return y * (1 - y2 / 6 * (1 - y2 / 20 * (1 - y2 / 42 * (1 - y2 / 72))))
}
