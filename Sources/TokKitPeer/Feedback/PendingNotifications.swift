/// Feedback for the media pipelines, collected while a feedback unit's lock is held and delivered after: at most
/// one of each kind per section (a later bitrate replaces an earlier one; a repeated keyframe request is one
/// request), so the ten slots (five kinds, two sections) never overflow. Allocates nothing.
struct PendingNotifications {
    private typealias Slot = (section: MediaKind, feedback: RTCPFeedback)
    private var slots = InlineArray<10, Slot?>(repeating: nil)
    private(set) var count = 0

    mutating func append(_ section: MediaKind, _ feedback: RTCPFeedback) {
        for i in 0 ..< count where slots[i]!.section == section && Self.sameKind(slots[i]!.feedback, feedback) {
            slots[i] = (section, feedback)
            return
        }
        guard count < slots.count else { return }
        slots[count] = (section, feedback)
        count += 1
    }

    /// Each notification, in the order first appended.
    func forEach(_ body: (MediaKind, RTCPFeedback) -> Void) {
        for i in 0 ..< count { body(slots[i]!.section, slots[i]!.feedback) }
    }

    private static func sameKind(_ a: RTCPFeedback, _ b: RTCPFeedback) -> Bool {
        switch (a, b) {
        case (.pictureLoss, .pictureLoss), (.fullIntraRequest, .fullIntraRequest),
             (.receiverEstimatedMaximumBitrate, .receiverEstimatedMaximumBitrate),
             (.sendSideEstimatedBitrate, .sendSideEstimatedBitrate), (.repairsDeclined, .repairsDeclined): true
        default: false
        }
    }
}
