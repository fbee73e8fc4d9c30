/// Feedback for the media pipelines, collected while a feedback unit's lock is held and delivered after: at most
/// one of each kind per section (a later bitrate replaces an earlier one; a repeated keyframe request is one
/// request), so the eight slots never overflow. Allocates nothing.
struct PendingNotifications {
    private typealias Slot = (section: MediaKind, feedback: RTCPFeedback)
    private var slots: (Slot?, Slot?, Slot?, Slot?, Slot?, Slot?, Slot?, Slot?) = (nil, nil, nil, nil, nil, nil, nil, nil)
    private(set) var count = 0

    mutating func append(_ section: MediaKind, _ feedback: RTCPFeedback) {
        withUnsafeMutableBytes(of: &slots) { raw in
            let stored = raw.assumingMemoryBound(to: Slot?.self)
            for i in 0 ..< count where stored[i]!.section == section && Self.sameKind(stored[i]!.feedback, feedback) {
                stored[i] = (section, feedback)
                return
            }
            guard count < stored.count else { return }
            stored[count] = (section, feedback)
            count += 1
        }
    }

    /// Each notification, in the order first appended.
    func forEach(_ body: (MediaKind, RTCPFeedback) -> Void) {
        var copy = slots
        withUnsafeBytes(of: &copy) { raw in
            let stored = raw.assumingMemoryBound(to: Slot?.self)
            for i in 0 ..< count { body(stored[i]!.section, stored[i]!.feedback) }
        }
    }

    private static func sameKind(_ a: RTCPFeedback, _ b: RTCPFeedback) -> Bool {
        switch (a, b) {
        case (.pictureLoss, .pictureLoss), (.fullIntraRequest, .fullIntraRequest),
             (.receiverEstimatedMaximumBitrate, .receiverEstimatedMaximumBitrate),
             (.sendSideEstimatedBitrate, .sendSideEstimatedBitrate): true
        default: false
        }
    }
}
