import TokKitDTLS
import TokKitICE

/// Runs `count` DTLS-SRTP handshakes between two peers over ICE on 127.0.0.1 (ICE connected first, not
/// timed) and prints the median and the spread of the client's start-to-keys time and of the time until both
/// sides are connected.
func runHandshakeBenchmark(count: Int) async {
    print("DTLS 1.2-SRTP handshake over ICE on 127.0.0.1, ECDSA P-256, \(count) runs")
    var clientTimes: [Double] = [], bothTimes: [Double] = [], iceTimes: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<count {
        do {
            let a = try ICEAgent(role: .controlling), b = try ICEAgent(role: .controlled)
            let forwarders = [forward(a, to: b), forward(b, to: a)]
            let iceStart = clock.now
            try a.setRemoteCredentials(b.localCredentials)
            try b.setRemoteCredentials(a.localCredentials)
            try a.gatherCandidates()
            try b.gatherCandidates()
            guard await poll({ a.state == .connected && b.state == .connected }) else {
                print("  ICE did not connect"); return
            }
            iceTimes.append(ms(clock.now - iceStart))
            let certA = try DTLSCertificate(), certB = try DTLSCertificate()
            let client = try DTLSTransport(ice: a, role: .client, certificate: certA, remoteFingerprint: certB.fingerprint)
            let server = try DTLSTransport(ice: b, role: .server, certificate: certB, remoteFingerprint: certA.fingerprint)
            let start = clock.now
            server.start()
            client.start()
            guard await poll({ client.state == .connected && server.state == .connected }) else {
                print("  handshake did not complete: \(client.state) \(server.state)"); return
            }
            bothTimes.append(ms(clock.now - start))
            if let d = client.handshakeDuration { clientTimes.append(ms(d)) }
            client.close(); server.close(); a.close(); b.close()
            for f in forwarders { await f.value }
        } catch {
            print("  failed: \(error)"); return
        }
    }
    print("  ICE (gather to both connected, not part of the handshake): median \(fmt(median(iceTimes), 2)) ms")
    print("  client start -> keys: median \(fmt(median(clientTimes), 2)) ms, min \(fmt(clientTimes.min() ?? 0, 2)), "
          + "max \(fmt(clientTimes.max() ?? 0, 2))")
    print("  start -> both connected (polled every 0.2 ms): median \(fmt(median(bothTimes), 2)) ms")
}

private func ms(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

/// Polls `condition` every 0.2 ms for at most 10 s.
private func poll(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<50_000 {
        if condition() { return true }
        try? await Task.sleep(for: .microseconds(200))
    }
    return false
}

private func forward(_ from: ICEAgent, to: ICEAgent) -> Task<Void, Never> {
    Task {
        for await event in from.events {
            switch event {
            case .localCandidate(let c): try? to.addRemoteCandidate(c.sdp)
            case .gatheringComplete: try? to.addRemoteEndOfCandidates()
            default: break
            }
        }
    }
}
