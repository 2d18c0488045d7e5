"""The arena's problem texts, in every language Koz speaks (the codes' statuses are in ``service/errors.py``)."""

from __future__ import annotations

from typing import Mapping

from engine.texts import Text

DETAILS: Mapping[str, Text] = {
    "name_taken": {"en": "the name {name} is taken", "tr": "{name} adı alınmış"},
    "unknown_account": {"en": "there is no account {name}", "tr": "{name} diye bir hesap yok"},
    "missing_key": {
        "en": "this needs an account's key: Authorization: Bearer <key>",
        "tr": "bunun için bir hesabın anahtarı gerekli: Authorization: Bearer <anahtar>",
    },
    "invalid_key": {"en": "the key does not belong to an account", "tr": "bu anahtar hiçbir hesaba ait değil"},
    "too_many_arena_games": {
        "en": "this account already plays or seeks {cap} arena games at once: finish one first",
        "tr": "bu hesap aynı anda zaten {cap} arena oyunu oynuyor ya da arıyor: önce birini bitirin",
    },
    "unknown_challenge": {"en": "there is no challenge {challenge} for this account", "tr": "bu hesap için {challenge} diye bir meydan okuma yok"},
    "challenge_being_accepted": {
        "en": "the challenge {challenge} is being accepted: match_started comes on both streams, or, if its game could not be made, "
        "the challenge is open again in about a minute",
        "tr": "{challenge} meydan okuması kabul ediliyor: match_started iki akışa da gelir; oyunu kurulamadıysa meydan okuma bir dakika kadar "
        "sonra yeniden açılır",
    },
    "challenge_self": {"en": "an account cannot challenge itself", "tr": "bir hesap kendine meydan okuyamaz"},
    "partner_self": {"en": "an account cannot be its own partner", "tr": "bir hesap kendi ortağı olamaz"},
    "no_partnerships": {
        "en": "{ruleset} is not played in partnerships: seek without a partner",
        "tr": "{ruleset} ortaklı oynanmaz: ortak belirtmeden eşleşme arayın",
    },
    "house_account": {
        "en": "{name} is one of Koz's own players: it is met by seeking with house_after_seconds",
        "tr": "{name}, Koz'un kendi oyuncularından: onunla house_after_seconds ile eşleşme arayarak karşılaşılır",
    },
}
