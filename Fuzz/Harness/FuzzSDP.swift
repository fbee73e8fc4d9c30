import TokKitSDP

/// Fuzz entry for ``SessionDescription`` and ``SDPCandidate``: decodes `data` as UTF-8 (invalid sequences replaced),
/// parses it; when it parses, its serialization must parse to an equal value and serialize identically, and
/// answering it must not trap (the answer, when made, must parse too).
public func fuzzSDP(_ data: UnsafeRawBufferPointer) {
    let text = String(decoding: data, as: UTF8.self)
    if let candidate = try? SDPCandidate(parsing: text) {
        precondition((try? SDPCandidate(parsing: candidate.description)) == candidate, "candidate round trip")
    }
    let description: SessionDescription
    do throws(SDPError) {
        description = try SessionDescription(parsing: text)
    } catch {
        _ = error.description
        return
    }
    let written = description.sdp
    guard let again = try? SessionDescription(parsing: written) else {
        preconditionFailure("serialized SDP failed to parse:\n\(written)")
    }
    precondition(again == description, "SDP round trip changed the description:\n\(written)")
    precondition(again.sdp == written, "SDP serialization is not stable")

    let options = SDPLocalDescriptionOptions(
        iceUfrag: "fuzz", icePassword: "fuzz-fuzz-fuzz-fuzz-fuzz",
        fingerprint: SDPFingerprint(digest: Array(repeating: 0xAB, count: 32)),
        audio: SDPLocalMedia(track: .init(streamID: "s", trackID: "a", ssrc: 1, cname: "c")),
        video: SDPLocalMedia(track: nil), sessionID: 1)
    if let answer = try? SessionDescription.answer(to: description, options) {
        precondition(answer.media.count == description.media.count, "answer must have one section per offer section")
        precondition((try? SessionDescription(parsing: answer.sdp)) != nil, "answer failed to parse:\n\(answer.sdp)")
    }
}
