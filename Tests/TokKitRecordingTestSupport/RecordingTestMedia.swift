import Foundation
import TokKitCodecs
import TokKitMedia

/// Known test media for the recording tests and the crash-writer helper: a picture pattern carrying its frame
/// number, a sine tone, and both encoded by TokKit's own VP8 and Opus encoders.
///
/// The picture (I420, neutral chroma): vertical luma bars 80 px wide in four greys (60, 110, 160, 210) panning left
/// 4 px per frame, a noise texture (±12) over the lower half scrolling 2 px per frame, under a top band of 32 px holding the frame number as 16 blocks of 32x32 (bit k at x = 32k: 235
/// for 1, 16 for 0). ``frameNumber(inLuma:width:)`` reads it back from a decoded picture, so a decoded frame can be
/// compared with the source frame it really came from.
public enum RecordingTestMedia {
    /// One encoded VP8 frame, copied out of the encoder.
    public struct VideoFrameData: Sendable {
        public var bytes: [UInt8]
        public var isKeyFrame: Bool
        /// Frame number, from 0.
        public var index: Int
        /// Its time from the start of the run.
        public var time: Duration
    }

    /// One encoded Opus packet.
    public struct AudioPacketData: Sendable {
        public var bytes: [UInt8]
        /// Packet number, from 0 (20 ms each).
        public var index: Int
        public var time: Duration
    }

    static let bars: [UInt8] = [60, 110, 160, 210]
    static let barWidth = 80, pan = 4, block = 32, bits = 16

    /// 256 rows of 2048 deterministic noise samples in -12...12, computed once.
    static let noise: [[Int16]] = (0..<256).map { y in
        (0..<2048).map { x in
            var h = UInt32(truncatingIfNeeded: x &* 374_761_393 &+ y &* 668_265_263)
            h = (h ^ (h >> 13)) &* 1_274_126_177
            return Int16((h ^ (h >> 16)) % 25) - 12
        }
    }

    /// The luma plane (width x height bytes) of frame `index`. The lower half adds a noise texture that scrolls
    /// 2 px per frame, so that the encoder has real detail to keep (and PSNR something to measure).
    public static func luma(index: Int, width: Int, height: Int) -> [UInt8] {
        var plane = [UInt8](repeating: 0, count: width * height)
        var row = [UInt8](repeating: 0, count: width)
        for x in 0..<width { row[x] = bars[((x + pan * index) / barWidth) % bars.count] }
        var top = row
        for bit in 0..<bits where (bit + 1) * block <= width {
            let value: UInt8 = (index >> bit) & 1 == 1 ? 235 : 16
            for x in (bit * block)..<((bit + 1) * block) { top[x] = value }
        }
        var textured = row
        plane.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                if y >= height / 2 {
                    let n = noise[y % 256], shift = (2 * index) % 1024
                    for x in 0..<width { textured[x] = UInt8(Int16(row[x]) + n[(x + shift) % 2048]) }
                }
                let source = y < block ? top : y < height / 2 ? row : textured
                source.withUnsafeBufferPointer { p.baseAddress!.advanced(by: y * width).update(from: $0.baseAddress!, count: width) }
            }
        }
        return plane
    }

    /// The frame number written in the top band of a decoded luma plane (each block judged by its centre).
    public static func frameNumber(inLuma luma: UnsafeBufferPointer<UInt8>, width: Int) -> Int {
        var value = 0
        for bit in 0..<bits where (bit + 1) * block <= width {
            let centre = (block / 2) * width + bit * block + block / 2
            if luma[centre] > 128 { value |= 1 << bit }
        }
        return value
    }

    /// Frame `index` as a pooled I420 frame stamped `index / fps` seconds.
    public static func frame(index: Int, width: Int, height: Int, fps: Int, pool: VideoFramePool) throws -> VideoFrame {
        let frame = try pool.makeFrame(format: .i420(width: width, height: height),
                                       timestamp: .nanoseconds(Int64(index) * 1_000_000_000 / Int64(fps)))
        let y = luma(index: index, width: width, height: height)
        frame.withMutablePlanes { planes in
            let stride = frame.format.bytesPerRow[0]
            let base = planes[0].baseAddress!.assumingMemoryBound(to: UInt8.self)
            y.withUnsafeBufferPointer { source in
                for row in 0..<height {
                    (base + row * stride).update(from: source.baseAddress! + row * width, count: width)
                }
            }
            for plane in 1..<3 {
                planes[plane].initializeMemory(as: UInt8.self, repeating: 128)
            }
        }
        return frame
    }

    /// `count` frames of the pattern encoded in VP8 (key frames at 0 and at every index in `keyFrames`).
    public static func encodeVideo(count: Int, width: Int, height: Int, fps: Int = 30, bitrate: Int = 1_000_000,
                                   keyFrames: Set<Int> = []) throws -> [VideoFrameData] {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(
            width: width, height: height, framesPerSecond: fps, bitrate: bitrate))
        let pool = VideoFramePool(capacity: 2)
        var out: [VideoFrameData] = []
        out.reserveCapacity(count)
        for index in 0..<count {
            let source = try frame(index: index, width: width, height: height, fps: fps, pool: pool)
            try encoder.encode(source, forceKeyframe: keyFrames.contains(index)) { encoded in
                out.append(VideoFrameData(bytes: Array(encoded.bytes), isKeyFrame: encoded.isKeyframe, index: index,
                                          time: .nanoseconds(Int64(index) * 1_000_000_000 / Int64(fps))))
            }
        }
        return out
    }

    /// `count` 20 ms packets of a `frequency` Hz sine (amplitude 8000) encoded in mono Opus at 48 kHz.
    public static func encodeTone(count: Int, frequency: Double = 440) throws -> [AudioPacketData] {
        let encoder = try OpusEncoder(settings: OpusEncoderSettings())
        let samples = encoder.samplesPerFrame
        var pcm = [Int16](repeating: 0, count: samples)
        var output = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketSize)
        var out: [AudioPacketData] = []
        out.reserveCapacity(count)
        for index in 0..<count {
            for i in 0..<samples {
                let t = Double(index * samples + i) / 48_000
                pcm[i] = Int16(8000 * sin(2 * Double.pi * frequency * t))
            }
            let length = try pcm.withUnsafeBufferPointer { source in
                try output.withUnsafeMutableBytes { try encoder.encode(source, into: $0) }
            }
            out.append(AudioPacketData(bytes: Array(output[0..<length]), index: index,
                                       time: .milliseconds(20 * index)))
        }
        return out
    }
}
