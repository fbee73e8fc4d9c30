import Testing
@testable import TokKitAudio

@Suite struct SoundCardProbeTests {
    @Test func recognisesCardLines() {
        #expect(SoundCardProbe.listsCard(" 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n   HDA Intel PCH at 0xf7f10000 irq 32\n"))
        #expect(SoundCardProbe.listsCard("12 [Device         ]: USB-Audio - USB Audio Device\n"))
        #expect(!SoundCardProbe.listsCard("--- no soundcards ---\n"))
        #expect(!SoundCardProbe.listsCard(""))
        #expect(!SoundCardProbe.listsCard("   HDA Intel PCH at 0xf7f10000 irq 32\n"))
    }

    @Test func needsACardAndAnOpeningPCM() throws {
        let dir = TemporaryDirectory()
        let cards = dir.file("cards")
        writeBytes(cards, Array(" 0 [Loopback       ]: Loopback - Loopback\n".utf8))
        let none = dir.file("none")
        writeBytes(none, Array("--- no soundcards ---\n".utf8))
        let config = try ALSAConfiguration("pcm.default { type null }")

        #expect(SoundCardProbe.isUsable(cardsFile: cards, configuration: config))
        #expect(!SoundCardProbe.isUsable(cardsFile: none, configuration: config))
        #expect(!SoundCardProbe.isUsable(cardsFile: dir.file("missing"), configuration: config))
        #expect(!SoundCardProbe.isUsable(pcm: "nosuch", cardsFile: cards, configuration: config))
    }

    @Test func thisMachineMatchesItsCardList() {
        // The build machines have no sound card (no /proc/asound/cards): the probe must say so. On a machine that
        // lists a card, the probe must agree with whether "default" opens.
        let listed = SoundCardProbe.cardListed()
        if !listed { #expect(!SoundCardProbe.isUsable()) }
    }
}
