/// A real offer from Chromium 156 (headless, fake camera + microphone, loopback), captured on this machine with
/// `pc.createOffer()` after ICE gathering finished. Lines are joined with CRLF as on the wire.
let chromiumOffer = chromiumOfferLines.split(separator: "\n").joined(separator: "\r\n") + "\r\n"

private let chromiumOfferLines = """
v=0
o=- 3170360874845867813 2 IN IP4 127.0.0.1
s=-
t=0 0
a=group:BUNDLE 0 1
a=extmap-allow-mixed
a=msid-semantic: WMS d9fd37fe-f0e1-4203-b7ca-9569fbb0414c
m=audio 41391 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
c=IN IP4 127.0.0.1
a=rtcp:9 IN IP4 0.0.0.0
a=candidate:3533975309 1 udp 2122194687 127.0.0.1 41391 typ host generation 0 network-id 3 network-cost 50
a=candidate:906288537 1 udp 2122063615 192.0.2.2 46003 typ host generation 0 network-id 1
a=candidate:3280485765 1 udp 2122267903 ::1 38419 typ host generation 0 network-id 4 network-cost 50
a=candidate:4251065465 1 udp 2122134271 fd00::2 54709 typ host generation 0 network-id 2
a=candidate:739179417 1 tcp 1518214911 127.0.0.1 9 typ host tcptype active generation 0 network-id 3 network-cost 50
a=candidate:3366848781 1 tcp 1518083839 192.0.2.2 9 typ host tcptype active generation 0 network-id 1
a=candidate:1025698065 1 tcp 1518288127 ::1 9 typ host tcptype active generation 0 network-id 4 network-cost 50
a=candidate:63490285 1 tcp 1518154495 fd00::2 9 typ host tcptype active generation 0 network-id 2
a=ice-ufrag:WFjZ
a=ice-pwd:Hnmnfd4F8CWlsioU0NNQWu6X
a=ice-options:trickle
a=fingerprint:sha-256 54:E4:8F:7E:AA:9A:96:9E:51:0D:AE:6F:02:1B:50:C3:0A:9C:B4:CD:34:08:91:E0:18:2A:FE:BA:E7:EE:E7:97
a=setup:actpass
a=mid:0
a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=sendrecv
a=msid:d9fd37fe-f0e1-4203-b7ca-9569fbb0414c cb55bffa-1c00-42b9-96ff-072af02badcf
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:111 opus/48000/2
a=rtcp-fb:111 transport-cc
a=fmtp:111 minptime=10;useinbandfec=1
a=rtpmap:63 red/48000/2
a=fmtp:63 111/111
a=rtpmap:9 G722/8000
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=rtpmap:13 CN/8000
a=rtpmap:110 telephone-event/48000
a=rtpmap:126 telephone-event/8000
a=ssrc:1279869790 cname:vHJ2IRokHzt3XiYr
a=ssrc:1279869790 msid:d9fd37fe-f0e1-4203-b7ca-9569fbb0414c cb55bffa-1c00-42b9-96ff-072af02badcf
m=video 38325 UDP/TLS/RTP/SAVPF 96 97 102 103 104 107 108 109 114 115 116 117 39 40 45 46 98 99 100 101 118 119 120
c=IN IP4 127.0.0.1
a=rtcp:9 IN IP4 0.0.0.0
a=candidate:3533975309 1 udp 2122194687 127.0.0.1 38325 typ host generation 0 network-id 3 network-cost 50
a=candidate:906288537 1 udp 2122063615 192.0.2.2 33697 typ host generation 0 network-id 1
a=candidate:3280485765 1 udp 2122267903 ::1 35060 typ host generation 0 network-id 4 network-cost 50
a=candidate:4251065465 1 udp 2122134271 fd00::2 54475 typ host generation 0 network-id 2
a=candidate:739179417 1 tcp 1518214911 127.0.0.1 9 typ host tcptype active generation 0 network-id 3 network-cost 50
a=candidate:3366848781 1 tcp 1518083839 192.0.2.2 9 typ host tcptype active generation 0 network-id 1
a=candidate:1025698065 1 tcp 1518288127 ::1 9 typ host tcptype active generation 0 network-id 4 network-cost 50
a=candidate:63490285 1 tcp 1518154495 fd00::2 9 typ host tcptype active generation 0 network-id 2
a=ice-ufrag:WFjZ
a=ice-pwd:Hnmnfd4F8CWlsioU0NNQWu6X
a=ice-options:trickle
a=fingerprint:sha-256 54:E4:8F:7E:AA:9A:96:9E:51:0D:AE:6F:02:1B:50:C3:0A:9C:B4:CD:34:08:91:E0:18:2A:FE:BA:E7:EE:E7:97
a=setup:actpass
a=mid:1
a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
a=extmap:13 urn:3gpp:video-orientation
a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
a=sendrecv
a=msid:d9fd37fe-f0e1-4203-b7ca-9569fbb0414c 7d5c1e65-4f99-460d-a020-2b87ba5a8a05
a=rtcp-mux
a=rtcp-rsize
a=rtcp-xr:rcvr-rtt=all
a=rtpmap:96 VP8/90000
a=rtcp-fb:96 goog-remb
a=rtcp-fb:96 transport-cc
a=rtcp-fb:96 ccm fir
a=rtcp-fb:96 nack
a=rtcp-fb:96 nack pli
a=rtpmap:97 rtx/90000
a=fmtp:97 apt=96
a=rtpmap:102 H264/90000
a=rtcp-fb:102 goog-remb
a=rtcp-fb:102 transport-cc
a=rtcp-fb:102 ccm fir
a=rtcp-fb:102 nack
a=rtcp-fb:102 nack pli
a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
a=rtpmap:103 rtx/90000
a=fmtp:103 apt=102
a=rtpmap:104 H264/90000
a=rtcp-fb:104 goog-remb
a=rtcp-fb:104 transport-cc
a=rtcp-fb:104 ccm fir
a=rtcp-fb:104 nack
a=rtcp-fb:104 nack pli
a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f
a=rtpmap:107 rtx/90000
a=fmtp:107 apt=104
a=rtpmap:108 H264/90000
a=rtcp-fb:108 goog-remb
a=rtcp-fb:108 transport-cc
a=rtcp-fb:108 ccm fir
a=rtcp-fb:108 nack
a=rtcp-fb:108 nack pli
a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
a=rtpmap:109 rtx/90000
a=fmtp:109 apt=108
a=rtpmap:114 H264/90000
a=rtcp-fb:114 goog-remb
a=rtcp-fb:114 transport-cc
a=rtcp-fb:114 ccm fir
a=rtcp-fb:114 nack
a=rtcp-fb:114 nack pli
a=fmtp:114 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f
a=rtpmap:115 rtx/90000
a=fmtp:115 apt=114
a=rtpmap:116 H264/90000
a=rtcp-fb:116 goog-remb
a=rtcp-fb:116 transport-cc
a=rtcp-fb:116 ccm fir
a=rtcp-fb:116 nack
a=rtcp-fb:116 nack pli
a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
a=rtpmap:117 rtx/90000
a=fmtp:117 apt=116
a=rtpmap:39 H264/90000
a=rtcp-fb:39 goog-remb
a=rtcp-fb:39 transport-cc
a=rtcp-fb:39 ccm fir
a=rtcp-fb:39 nack
a=rtcp-fb:39 nack pli
a=fmtp:39 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=4d001f
a=rtpmap:40 rtx/90000
a=fmtp:40 apt=39
a=rtpmap:45 AV1/90000
a=rtcp-fb:45 goog-remb
a=rtcp-fb:45 transport-cc
a=rtcp-fb:45 ccm fir
a=rtcp-fb:45 nack
a=rtcp-fb:45 nack pli
a=fmtp:45 level-idx=5;profile=0;tier=0
a=rtpmap:46 rtx/90000
a=fmtp:46 apt=45
a=rtpmap:98 VP9/90000
a=rtcp-fb:98 goog-remb
a=rtcp-fb:98 transport-cc
a=rtcp-fb:98 ccm fir
a=rtcp-fb:98 nack
a=rtcp-fb:98 nack pli
a=fmtp:98 profile-id=0
a=rtpmap:99 rtx/90000
a=fmtp:99 apt=98
a=rtpmap:100 VP9/90000
a=rtcp-fb:100 goog-remb
a=rtcp-fb:100 transport-cc
a=rtcp-fb:100 ccm fir
a=rtcp-fb:100 nack
a=rtcp-fb:100 nack pli
a=fmtp:100 profile-id=2
a=rtpmap:101 rtx/90000
a=fmtp:101 apt=100
a=rtpmap:118 red/90000
a=rtpmap:119 rtx/90000
a=fmtp:119 apt=118
a=rtpmap:120 ulpfec/90000
a=ssrc-group:FID 2577965613 1163245517
a=ssrc:2577965613 cname:vHJ2IRokHzt3XiYr
a=ssrc:2577965613 msid:d9fd37fe-f0e1-4203-b7ca-9569fbb0414c 7d5c1e65-4f99-460d-a020-2b87ba5a8a05
a=ssrc:1163245517 cname:vHJ2IRokHzt3XiYr
a=ssrc:1163245517 msid:d9fd37fe-f0e1-4203-b7ca-9569fbb0414c 7d5c1e65-4f99-460d-a020-2b87ba5a8a05
"""
