import Testing
@testable import TokKitPeer

@Suite struct PendingNotificationsTests {
    @Test func keepsOneOfEachKindPerSectionTheLatestBitrateWinning() {
        var pending = PendingNotifications()
        pending.append(.video, .sendSideEstimatedBitrate(1_000))
        pending.append(.video, .pictureLoss)
        pending.append(.video, .sendSideEstimatedBitrate(2_000))
        pending.append(.audio, .pictureLoss)
        pending.append(.video, .pictureLoss)
        var seen: [String] = []
        pending.forEach { section, feedback in seen.append("\(section) \(feedback)") }
        #expect(seen == ["video sendSideEstimatedBitrate(2000)", "video pictureLoss", "audio pictureLoss"])
    }

    /// Every kind on both sections at once fits: none is lost, whatever else is pending.
    @Test func everyKindOnBothSectionsFits() {
        let kinds: [RTCPFeedback] = [.pictureLoss, .fullIntraRequest, .receiverEstimatedMaximumBitrate(1),
                                     .sendSideEstimatedBitrate(2), .repairsDeclined]
        var pending = PendingNotifications()
        for section in [MediaKind.audio, .video] { for kind in kinds { pending.append(section, kind) } }
        var seen: [String] = []
        pending.forEach { section, feedback in seen.append("\(section) \(feedback)") }
        #expect(pending.count == 10)
        #expect(seen.last == "video repairsDeclined")
    }
}
