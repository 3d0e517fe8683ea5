//! Declarative macros shared by the crate.

/// An enum over the codes of a `u8` field, with `From<u8>` and
/// `From<Enum> for u8` generated from one table of `Variant = code` lines,
/// in the manner of smoltcp's `enum_with_unknown!`.
///
/// Attributes (doc comments, derives) on the enum and on every variant are
/// passed through unchanged; variants are declared in the order given.
/// Two shapes:
///
/// - **Open**: the named codes, then `;` and one catch-all variant holding
///   any other code, so no code is ever lost. A named code may list further
///   patterns that map to it (`CommD = 24 | 25..=31`); the first code is
///   the one it converts back to. An optional mask (`enum E(u8 & 0x07)`)
///   is applied to the input, and to the catch-all's code on the way back.
/// - **Closed**: a mask and one variant for every code under it. The mask
///   must be 2ⁿ − 1 and the codes 0..=mask, each once (checked at compile
///   time), so the input's bits under the mask always name a variant.
///
/// ```ignore
/// enum_with_unknown! {
///     /// Severity of a hazard.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Hazard(u8 & 0b11) {
///         /// 0: nil.
///         Nil = 0,
///         /// 1: light.
///         Light = 1,
///         /// 2: moderate.
///         Moderate = 2,
///         /// 3: severe.
///         Severe = 3,
///     }
/// }
///
/// enum_with_unknown! {
///     /// A register number.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Register(u8) {
///         /// 0x10.
///         Capability = 0x10,
///         ;
///         /// Any other number.
///         Unknown(u8),
///     }
/// }
/// ```
macro_rules! enum_with_unknown {
    // Open: named codes, then a catch-all.
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident(u8 $(& $mask:literal)?) {
            $(
                $(#[$vattr:meta])*
                $variant:ident = $value:literal $(| $extra:pat_param)* ,
            )+
            ;
            $(#[$uattr:meta])*
            $unknown:ident(u8) $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $(
                $(#[$vattr])*
                $variant,
            )+
            $(#[$uattr])*
            $unknown(u8),
        }

        impl ::core::convert::From<u8> for $name {
            /// The variant of a known code, else the catch-all holding the
            /// code (bits outside the mask, if any, are ignored).
            // `24 | 25..=31` keeps the code that converts back apart.
            #[allow(clippy::manual_range_patterns)]
            fn from(v: u8) -> Self {
                match v $(& $mask)? {
                    $( $value $(| $extra)* => $name::$variant, )+
                    other => $name::$unknown(other),
                }
            }
        }

        impl ::core::convert::From<$name> for u8 {
            fn from(v: $name) -> u8 {
                match v {
                    $( $name::$variant => $value, )+
                    $name::$unknown(other) => other $(& $mask)?,
                }
            }
        }
    };

    // Closed: a mask and every code under it.
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident(u8 & $mask:literal) {
            $(#[$fattr:meta])*
            $first:ident = $fvalue:literal,
            $(
                $(#[$vattr:meta])*
                $variant:ident = $value:literal,
            )*
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $(#[$fattr])*
            $first,
            $(
                $(#[$vattr])*
                $variant,
            )*
        }

        // Every code under the mask names exactly one variant.
        const _: () = {
            let codes: &[u8] = &[$fvalue $(, $value)*];
            let mask = $mask as usize;
            assert!((mask + 1).is_power_of_two() && codes.len() == mask + 1);
            let mut seen = [false; 256];
            let mut i = 0;
            while i < codes.len() {
                let c = codes[i] as usize;
                assert!(c <= mask && !seen[c]);
                seen[c] = true;
                i += 1;
            }
        };

        impl ::core::convert::From<u8> for $name {
            /// The variant of the code's bits under the mask (higher bits
            /// are ignored).
            fn from(v: u8) -> Self {
                match v & $mask {
                    $( $value => $name::$variant, )*
                    // Only `$fvalue` is left: the codes cover the mask.
                    _ => $name::$first,
                }
            }
        }

        impl ::core::convert::From<$name> for u8 {
            fn from(v: $name) -> u8 {
                match v {
                    $name::$first => $fvalue,
                    $( $name::$variant => $value, )*
                }
            }
        }
    };
}

pub(crate) use enum_with_unknown;

#[cfg(test)]
mod test {
    enum_with_unknown! {
        /// Open, with a range folded into one variant and a mask.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum Open(u8 & 0x1F) {
            /// 0.
            Zero = 0,
            /// 24 to 31.
            High = 24 | 25..=31,
            ;
            /// Anything else.
            Other(u8),
        }
    }

    enum_with_unknown! {
        /// Closed over two bits.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum Closed(u8 & 0b11) {
            /// 0.
            A = 0,
            /// 1.
            B = 1,
            /// 2.
            C = 2,
            /// 3.
            D = 3,
        }
    }

    #[test]
    fn test_open() {
        assert_eq!(Open::from(0x20), Open::Zero);
        assert_eq!(Open::from(27), Open::High);
        assert_eq!(u8::from(Open::High), 24);
        assert_eq!(Open::from(0xE5), Open::Other(5));
        assert_eq!(u8::from(Open::Other(0xE5)), 5);
    }

    #[test]
    fn test_closed() {
        for v in 0..=255u8 {
            assert_eq!(u8::from(Closed::from(v)), v & 3);
        }
        assert_eq!(Closed::from(4), Closed::A);
        assert_eq!(Closed::from(7), Closed::D);
    }
}
