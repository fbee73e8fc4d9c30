import CMallocCounter
import Foundation
import Synchronization
import TokKitPeer
import TokKitTesting

/// The packet path of two connected ``PeerConnection``s over 127.0.0.1 (ICE, DTLS-SRTP, the core and its feedback
/// units, both directions of transport-wide CC, NACK bookkeeping): CPU time of `sendRTP` on the calling thread, and
/// heap allocations of the whole process per packet sent and received in steady state (libnice and GLib included).
enum PeerPathBench {
    static func run() async throws {
        let sender = try PeerConnection(configuration: PeerConfiguration(rtcpInterval: .seconds(1), receivesAudio: false,
                                                                         receivesVideo: false))
        let receiver = try PeerConnection(configuration: PeerConfiguration(audioSSRC: nil, videoSSRC: nil,
                                                                           rtcpInterval: .seconds(1)))
        let received = Atomic<Int>(0)
        receiver.setReceiveHandler(.video) { _ in received.add(1, ordering: .relaxed) }
        let pumps = try InMemorySignaling.negotiate(sender, receiver)
        defer {
            sender.close()
            receiver.close()
            for pump in pumps { pump.cancel() }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while sender.state != .connected || receiver.state != .connected {
            guard ContinuousClock.now < deadline else {
                print("peer path: not connected within 10 s (\(sender.state), \(receiver.state))")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let payload = [UInt8](repeating: 0x5A, count: 1000)
        var timestamp: UInt32 = 0
        /// Sends `count` packets at about 2000 a second (a 1000-byte packet every 0.5 ms: 16 Mb/s, no loss on
        /// loopback) and waits until the receiver has them all, or 5 s.
        func send(_ count: Int) async throws -> Double {
            let target = received.load(ordering: .relaxed) + count
            var cpu = 0.0
            for i in 0 ..< count {
                timestamp &+= 90
                let start = RTCBench.threadCPUTime()
                try payload.withUnsafeBytes { try sender.sendRTP(.video, payload: $0, timestamp: timestamp, marker: i % 10 == 9) }
                cpu += RTCBench.threadCPUTime() - start
                if i % 20 == 19 { try await Task.sleep(for: .milliseconds(10)) }
            }
            let until = ContinuousClock.now + .seconds(5)
            while received.load(ordering: .relaxed) < target, ContinuousClock.now < until {
                try await Task.sleep(for: .milliseconds(5))
            }
            return cpu / Double(count)
        }
        _ = try await send(2000)  // warm-up: histories, buffers, feedback storage grow to their size
        let allocationsBefore = tk_malloc_count(), receivedBefore = received.load(ordering: .relaxed)
        let perPacket = try await send(4000)
        let allocations = tk_malloc_count() - allocationsBefore
        let got = received.load(ordering: .relaxed) - receivedBefore
        print("PeerConnection sendRTP (1000 B video, SRTP, TWCC)".padding(toLength: 44, withPad: " ", startingAt: 0),
              String(format: "%10.1f ns/op", perPacket))
        print(String(format: "PeerConnection packet path allocations: %.2f per packet (%d in %d sent, %d received)",
                     Double(allocations) / 4000, allocations, 4000, got))
    }
}
