import Testing
import TokKitSDP

@Suite struct SessionDescriptionTests {
    @Test func parsesTheChromiumOffer() throws {
        let offer = try SessionDescription(parsing: chromiumOffer)
        #expect(offer.origin.sessionID == 3_170_360_874_845_867_813)
        #expect(offer.origin.sessionVersion == 2)
        #expect(offer.bundleGroup == .bundle(["0", "1"]))
        #expect(offer.extmapAllowMixed)
        #expect(offer.msidSemantic == " WMS d9fd37fe-f0e1-4203-b7ca-9569fbb0414c")
        #expect(offer.media.count == 2)

        let audio = offer.media[0]
        #expect(audio.kind == "audio" && audio.port == 41391 && audio.proto == "UDP/TLS/RTP/SAVPF")
        #expect(audio.formats == ["111", "63", "9", "0", "8", "13", "110", "126"])
        #expect(audio.mid == "0")
        #expect(audio.rtcpMux && audio.rtcpReducedSize)
        #expect(audio.direction == .sendrecv)
        #expect(audio.rtcp == "9 IN IP4 0.0.0.0")
        #expect(audio.connection == SDPConnection(address: "127.0.0.1"))
        let opus = try #require(audio.codec(payloadType: 111))
        #expect(opus.matches("OPUS") && opus.clockRate == 48000 && opus.channels == 2)
        #expect(opus.parameter("minptime") == "10" && opus.parameter("useinbandfec") == "1")
        #expect(opus.feedback == [.transportWideCC])
        #expect(audio.codec(payloadType: 63)?.parameters.first?.key == "111/111")
        #expect(audio.codecs.map(\.payloadType) == [111, 63, 9, 0, 8, 13, 110, 126])
        #expect(audio.extensionID(SDPExtensionMap.midURI) == 4)
        #expect(audio.extensions.count == 4)
        #expect(audio.mediaStreamIDs == [SDPMediaStreamID(streamID: "d9fd37fe-f0e1-4203-b7ca-9569fbb0414c",
                                                          trackID: "cb55bffa-1c00-42b9-96ff-072af02badcf")])
        #expect(audio.sourceAttribute("cname", ssrc: 1_279_869_790) == "vHJ2IRokHzt3XiYr")
        #expect(audio.attributes == [SDPAttribute("rtcp-xr", "rcvr-rtt=all")])

        let transport = offer.transport(of: audio)
        #expect(transport.iceUfrag == "WFjZ")
        #expect(transport.icePassword == "Hnmnfd4F8CWlsioU0NNQWu6X")
        #expect(transport.iceOptions == ["trickle"])
        #expect(transport.setup == .actpass)
        #expect(transport.fingerprints.first?.algorithm == "sha-256")
        #expect(transport.fingerprints.first?.digest.prefix(3) == [0x54, 0xE4, 0x8F])
        #expect(transport.fingerprints.first?.digest.count == 32)

        #expect(audio.candidates.count == 8)
        #expect(audio.candidates[0] == SDPCandidate(
            foundation: "3533975309", component: 1, transport: "udp", priority: 2_122_194_687, address: "127.0.0.1",
            port: 41391, kind: .host,
            extensions: [.init("generation", "0"), .init("network-id", "3"), .init("network-cost", "50")]))
        #expect(audio.candidates[2].address == "::1")
        #expect(audio.candidates[4].transport == "tcp" && audio.candidates[4].extensionValue("tcptype") == "active")

        let video = offer.media[1]
        #expect(video.mid == "1")
        #expect(video.formats.count == 23 && video.codecs.count == 23)
        let vp8 = try #require(video.codec(payloadType: 96))
        #expect(vp8.matches("vp8") && vp8.clockRate == 90000 && vp8.channels == nil)
        #expect(vp8.feedback == [.receiverEstimatedMaximumBitrate, .transportWideCC, .fullIntraRequest, .nack,
                                 .pictureLossIndication])
        #expect(video.codec(payloadType: 97)?.parameter("apt") == "96")
        #expect(video.codec(payloadType: 102)?.parameter("profile-level-id") == "42001f")
        #expect(video.codec(payloadType: 45)?.name == "AV1")
        #expect(video.codec(payloadType: 120)?.name == "ulpfec")
        #expect(video.extensions.count == 11)
        #expect(video.extensionID("urn:3gpp:video-orientation") == 13)
        #expect(video.sourceGroups == [SDPSourceGroup(semantics: "FID", ssrcs: [2_577_965_613, 1_163_245_517])])
        #expect(video.sources.count == 4)
        #expect(!video.endOfCandidates)
    }

    @Test func serializationRoundTrips() throws {
        let offer = try SessionDescription(parsing: chromiumOffer)
        let text = offer.sdp
        #expect(text.hasSuffix("\r\n"))
        #expect(!text.contains("\n\n"))
        let again = try SessionDescription(parsing: text)
        #expect(again == offer)
        #expect(again.sdp == text)
        // Every line of the original survives (the order of some attributes may differ).
        let original = Set(chromiumOffer.split(separator: "\r\n"))
        let written = Set(text.split(separator: "\r\n"))
        #expect(original == written)
    }

    @Test func acceptsLFOnlyAndKeepsUnknownLines() throws {
        let text = "v=0\no=- 1 1 IN IP4 0.0.0.0\ns=x\ni=info\nb=AS:30\nt=0 0\na=foo:bar\na=baz\n"
            + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\nb=AS:10\na=sctp-port:5000\na=mid:2\n"
        let d = try SessionDescription(parsing: text)
        #expect(d.sessionName == "x")
        #expect(d.otherLines == [SDPRawLine(type: "i", value: "info"), SDPRawLine(type: "b", value: "AS:30")])
        #expect(d.attributes == [SDPAttribute("foo", "bar"), SDPAttribute("baz")])
        #expect(d.media[0].kind == "application" && d.media[0].formats == ["webrtc-datachannel"])
        #expect(d.media[0].attributes == [SDPAttribute("sctp-port", "5000")])
        #expect(d.media[0].otherLines == [SDPRawLine(type: "b", value: "AS:10")])
        #expect(try SessionDescription(parsing: d.sdp) == d)
    }

    @Test func fmtpAndFeedbackWithoutRtpmapStayGeneric() throws {
        let text = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 RTP/AVP 0 101\r\n"
            + "a=fmtp:101 0-15\r\na=rtcp-fb:101 nack\r\na=rtcp-fb:* ccm fir\r\n"
        let d = try SessionDescription(parsing: text)
        #expect(d.media[0].codecs.isEmpty)
        #expect(d.media[0].wildcardFeedback == [.fullIntraRequest])
        #expect(d.media[0].attributes == [SDPAttribute("fmtp", "101 0-15"), SDPAttribute("rtcp-fb", "101 nack")])
        #expect(try SessionDescription(parsing: d.sdp) == d)
    }

    func error(_ text: String, limits: SDPLimits = .default) -> SDPError? {
        do throws(SDPError) {
            _ = try SessionDescription(parsing: text, limits: limits)
            return nil
        } catch { return error }
    }

    static let header = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"

    @Test func rejectsGarbageWithTypedErrors() {
        #expect(error("") == .missingLine(type: "v"))
        #expect(error("hello world") == .malformedLine(line: 1))
        #expect(error("\u{0}\u{1}\u{2}") == .malformedLine(line: 1))
        #expect(error("v=1\r\n") == .invalidValue(line: 1, field: "version"))
        #expect(error("o=- 1 1 IN IP4 0.0.0.0\r\nv=0\r\n") == .unexpectedLine(line: 1, type: "o"))
        #expect(error("v=0\r\ns=-\r\n") == .missingLine(type: "o"))
        #expect(error("v=0\r\no=- x 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n") == .invalidValue(line: 2, field: "origin"))
        #expect(error("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\n") == .missingLine(type: "t"))
        #expect(error("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nm=audio 9 RTP/AVP 0\r\n") == .missingLine(type: "t"))
        #expect(error(Self.header + "v=0\r\n") == .unexpectedLine(line: 5, type: "v"))
        #expect(error(Self.header + "m=audio 9 RTP/AVP 0\r\nt=0 0\r\n") == .unexpectedLine(line: 6, type: "t"))
        #expect(error(Self.header + "a=x\u{7}y\r\n") == .malformedLine(line: 5))
        #expect(error(Self.header + "A=x\r\n") == .malformedLine(line: 5))
        #expect(error(Self.header + "m=audio\r\n") == .invalidValue(line: 5, field: "m= line"))
        #expect(error(Self.header + "m=audio 70000 RTP/AVP 0\r\n") == .invalidValue(line: 5, field: "m= port"))
        #expect(error(Self.header + "m=audio 9/0 RTP/AVP 0\r\n") == .invalidValue(line: 5, field: "m= port count"))
        let m = Self.header + "m=audio 9 RTP/AVP 111\r\n"
        #expect(error(m + "a=rtpmap:111 opus\r\n") == .invalidValue(line: 6, field: "rtpmap"))
        #expect(error(m + "a=rtpmap:200 opus/48000\r\n") == .invalidValue(line: 6, field: "rtpmap"))
        #expect(error(m + "a=rtpmap:111 opus/48000/2\r\na=rtpmap:111 opus/48000/2\r\n")
            == .invalidValue(line: 7, field: "rtpmap"))
        #expect(error(m + "a=rtpmap:111 opus/99999999999999999999\r\n") == .invalidValue(line: 6, field: "rtpmap"))
        #expect(error(m + "a=fmtp:abc x\r\n") == .invalidValue(line: 6, field: "fmtp"))
        #expect(error(m + "a=rtcp-fb:111\r\n") == .invalidValue(line: 6, field: "rtcp-fb"))
        #expect(error(m + "a=extmap:0 urn:x\r\n") == .invalidValue(line: 6, field: "extmap"))
        #expect(error(m + "a=extmap:1/sideways urn:x\r\n") == .invalidValue(line: 6, field: "extmap"))
        #expect(error(m + "a=ssrc:abc cname:x\r\n") == .invalidValue(line: 6, field: "ssrc"))
        #expect(error(m + "a=ssrc-group:FID 1 x\r\n") == .invalidValue(line: 6, field: "ssrc-group"))
        #expect(error(m + "a=setup:sideways\r\n") == .invalidValue(line: 6, field: "setup"))
        #expect(error(m + "a=ice-ufrag:abc\r\n") == .invalidValue(line: 6, field: "ice-ufrag"))
        #expect(error(m + "a=ice-pwd:short\r\n") == .invalidValue(line: 6, field: "ice-pwd"))
        #expect(error(m + "a=fingerprint:sha-256 ZZ:00\r\n") == .invalidValue(line: 6, field: "fingerprint"))
        #expect(error(m + "a=candidate:1 1 udp 1 1.2.3.4 5 typ\r\n") == .invalidValue(line: 6, field: "candidate"))
        #expect(error(m + "a=msid:a b c\r\n") == .invalidValue(line: 6, field: "msid"))
        #expect(error(m + "a=mid:\r\n") == .invalidValue(line: 6, field: "mid"))
        #expect(error(m + "a=bad name\r\n") == .invalidValue(line: 6, field: "attribute name"))
    }

    @Test func enforcesSizeLineAndSectionCaps() {
        let big = Self.header + String(repeating: "a=x\r\n", count: 14000)
        #expect(error(big) == .tooLarge(bytes: big.utf8.count, limit: 65536))
        let manyLines = Self.header + String(repeating: "a=x\r\n", count: 2100)
        #expect(error(manyLines) == .tooManyLines(limit: 2048))
        let longLine = Self.header + "a=" + String(repeating: "x", count: 5000) + "\r\n"
        #expect(error(longLine) == .lineTooLong(line: 5, length: 5002, limit: 4096))
        let sections = Self.header + String(repeating: "m=audio 9 RTP/AVP 0\r\n", count: 65)
        #expect(error(sections) == .tooManyMediaSections(limit: 64))
        let tight = SDPLimits(maximumSize: 100, maximumLines: 10, maximumLineLength: 50, maximumMediaSections: 1)
        #expect(error(chromiumOffer, limits: tight) == .tooLarge(bytes: chromiumOffer.utf8.count, limit: 100))
    }
}
