#!/usr/bin/env python3
"""GNU Radio 3.10 broadcast FM receiver for the airwaves benchmark.

    python3 wfm.py mono|stereo IN.cu8 OFFSET_HZ CUTOFF_HZ TRANSITION_HZ OUT.f32

IN.cu8: RTL-SDR style unsigned 8-bit I/Q at 2.4 MS/s (zero at 127.4,
full scale 128). The station sits OFFSET_HZ from the file's centre.

    file source (uchar) -> uchar to float -> deinterleave -> float to complex
    -> (x - 127.4(1+j)) / 128
    -> freq_xlating_fir_filter_ccf (decimation 10, firdes.low_pass(1, 2.4e6,
       CUTOFF_HZ, TRANSITION_HZ, Hamming), centre OFFSET_HZ) -> 240 kHz
    -> analog.wfm_rcv (mono) or analog.wfm_rcv_pll (stereo), 75 us,
       audio decimation 5 -> 48 kHz
    -> OUT.f32: float32 little-endian, mono, or L R interleaved.

Used by benches/src/bin/fm_vs_gnuradio.rs (see there); run by hand for a
look at one file.
"""

import sys

from gnuradio import analog, blocks, filter, gr
from gnuradio.fft import window
from gnuradio.filter import firdes

INPUT_RATE = 2.4e6
DECIMATION = 10
QUAD_RATE = INPUT_RATE / DECIMATION
AUDIO_DECIMATION = 5
TAU = 75e-6
ZERO = 127.4


class Receiver(gr.top_block):
    def __init__(self, mode, src, offset, cutoff, transition, dst):
        gr.top_block.__init__(self, "airwaves wfm bench")
        source = blocks.file_source(gr.sizeof_char, src, False)
        to_float = blocks.uchar_to_float()
        split = blocks.deinterleave(gr.sizeof_float, 1)
        to_complex = blocks.float_to_complex(1)
        centre = blocks.add_const_cc(complex(-ZERO, -ZERO))
        scale = blocks.multiply_const_cc(1.0 / 128.0)
        taps = firdes.low_pass(1.0, INPUT_RATE, cutoff, transition, window.WIN_HAMMING)
        channel = filter.freq_xlating_fir_filter_ccf(DECIMATION, taps, offset, INPUT_RATE)
        self.connect(source, to_float, split)
        self.connect((split, 0), (to_complex, 0))
        self.connect((split, 1), (to_complex, 1))
        self.connect(to_complex, centre, scale, channel)
        if mode == "mono":
            # wfm_rcv has no tau argument: its fm_deemph defaults to 75 us.
            demod = analog.wfm_rcv(QUAD_RATE, AUDIO_DECIMATION)
            sink = blocks.file_sink(gr.sizeof_float, dst, False)
            self.connect(channel, demod, sink)
        else:
            demod = analog.wfm_rcv_pll(QUAD_RATE, AUDIO_DECIMATION, TAU)
            both = blocks.interleave(gr.sizeof_float, 1)
            sink = blocks.file_sink(gr.sizeof_float, dst, False)
            self.connect(channel, demod)
            self.connect((demod, 0), (both, 0))
            self.connect((demod, 1), (both, 1))
            self.connect(both, sink)
        sink.set_unbuffered(False)


def main(argv):
    if len(argv) != 7 or argv[1] not in ("mono", "stereo"):
        sys.stderr.write(__doc__)
        return 2
    mode, src, dst = argv[1], argv[2], argv[6]
    offset, cutoff, transition = (float(v) for v in argv[3:6])
    tb = Receiver(mode, src, offset, cutoff, transition, dst)
    tb.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
