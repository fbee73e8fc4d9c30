import Testing
import TokKit
import TokKitCodecs
import TokKitMedia
import TokKitPeer
import TokKitRTP

@testable import TokKitArchiving

/// A composed archive refuses a VP8 key frame declaring a picture above 1920x1088 (either orientation) before the
/// decoder sees it: a crafted 16383x16383 header would make libvpx allocate gigabytes. The stream's refusal is kept
/// (logged once) and its later key frames within the bound decode again.
@Suite struct ComposedFrameLimitTests {
    /// A VP8 key frame header declaring `width`x`height` (show_frame, first partition of 100 bytes), then filler.
    static func keyFrame(width: Int, height: Int, keyFrame: Bool = true) -> [UInt8] {
        let size = 100
        var bytes: [UInt8] = [
            UInt8((size & 7) << 5 | 0x10 | (keyFrame ? 0 : 1)), UInt8((size >> 3) & 0xFF), UInt8((size >> 11) & 0xFF),
            0x9D, 0x01, 0x2A, UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8),
        ]
        bytes += (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        return bytes
    }

    /// One RTP packet (PT 96, marker set) carrying a whole VP8 frame after a one-byte descriptor (S = 1, PID = 0).
    static func rtp(sequence: UInt16, timestamp: UInt32, frame: [UInt8]) -> [UInt8] {
        [0x80, 0xE0, UInt8(sequence >> 8), UInt8(sequence & 0xFF),
         UInt8(timestamp >> 24), UInt8((timestamp >> 16) & 0xFF), UInt8((timestamp >> 8) & 0xFF), UInt8(timestamp & 0xFF),
         0x12, 0x34, 0x56, 0x78, 0x10] + frame
    }

    static func check(_ frame: [UInt8]) -> ComposedFrameRefusal? {
        frame.withUnsafeBytes { ComposedFrameLimit.check($0) }
    }

    @Test func theBoundIsReadFromTheKeyFrameHeader() {
        #expect(Self.check(Self.keyFrame(width: 16383, height: 16383)) == .frameTooLarge(width: 16383, height: 16383))
        #expect(Self.check(Self.keyFrame(width: 1921, height: 1080)) == .frameTooLarge(width: 1921, height: 1080))
        #expect(Self.check(Self.keyFrame(width: 1920, height: 1089)) == .frameTooLarge(width: 1920, height: 1089))
        #expect(Self.check(Self.keyFrame(width: 1200, height: 1200)) == .frameTooLarge(width: 1200, height: 1200))
        #expect(Self.check(Self.keyFrame(width: 1920, height: 1088)) == nil)
        #expect(Self.check(Self.keyFrame(width: 1088, height: 1920)) == nil, "portrait 1080p")
        #expect(Self.check(Self.keyFrame(width: 640, height: 480)) == nil)
        #expect(Self.check(Self.keyFrame(width: 16383, height: 16383, keyFrame: false)) == nil, "a delta frame has no size")
        #expect(Self.check(Array(Self.keyFrame(width: 16383, height: 16383).prefix(9))) == nil, "too short to say")
        #expect(Self.check([]) == nil)
    }

    /// Fed through the stream input as RTP: the huge key frame is refused (not a decode failure), so are the delta
    /// frames after it, and a real 320x240 key frame then decodes.
    @Test func anOversizedKeyFrameIsRefusedBeforeDecodingAndTheStreamRecovers() throws {
        let input = ComposedStreamInput(streamID: StreamID("crafted"), archiveStart: .now)
        var sequence: UInt16 = 1000
        var timestamp: UInt32 = 90_000
        func feed(_ frame: [UInt8]) throws {
            let packet = Self.rtp(sequence: sequence, timestamp: timestamp, frame: frame)
            sequence &+= 1
            timestamp &+= 3_000
            try packet.withUnsafeBytes { raw in
                let view = try RTPPacketView(parsing: raw)
                input.receive(view, kind: .video)
            }
        }
        try feed(Self.keyFrame(width: 16383, height: 16383))
        try feed(Self.keyFrame(width: 16383, height: 16383, keyFrame: false))
        try feed(Self.keyFrame(width: 9000, height: 9000))
        #expect(input.frameRefusal == .frameTooLarge(width: 16383, height: 16383), "the first refusal is kept")
        var counts = input.videoCounts
        #expect(counts.decoded == 0 && counts.failed == 0, "\(counts)")

        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: 320, height: 240, bitrate: 500_000))
        let pool = VideoFramePool(capacity: 2)
        let picture = try pool.makeFrame(format: .i420(width: 320, height: 240, fps: 30))
        picture.withMutablePlanes { planes in
            for plane in planes { _ = plane.initializeMemory(as: UInt8.self, repeating: 128) }
        }
        var encoded: [UInt8] = []
        try encoder.encode(picture, forceKeyframe: true) { encoded = Array($0.bytes) }
        try #require(!encoded.isEmpty)
        try feed(encoded)
        counts = input.videoCounts
        #expect(counts.decoded == 1 && counts.failed == 0, "\(counts)")
        #expect(input.latestPicture?.format.width == 320)
    }
}
