"""The service's own texts, in every language Koz speaks, and the language of a request.

A request's language is its ``lang`` query parameter when that names a language Koz speaks (an
EventSource or a link cannot set headers), else the best match of its ``Accept-Language``, else
English. Texts of games come from the engine; these are the service's: its problems' details
(templates, rendered by :func:`engine.texts.render`) and the titles of HTTP statuses.
"""

from __future__ import annotations

from typing import Any, Mapping

from flask import Flask, Response, g, has_request_context, request
from werkzeug.datastructures import LanguageAccept

from engine.texts import DEFAULT_LANGUAGE, LANGUAGES, Text


def language() -> str:
    """The language this request is answered in."""
    if not has_request_context():
        return DEFAULT_LANGUAGE
    if "language" not in g:
        g.language = choose_language(request.args.get("lang"), request.accept_languages)
    chosen: str = g.language
    return chosen


def choose_language(lang: str | None, accept_language: LanguageAccept) -> str:
    """``lang`` when it names a language Koz speaks, else the best match of ``Accept-Language``,
    else English: for the app's answers and the HTTP server's own refusals alike."""
    return lang if lang in LANGUAGES else accept_language.best_match(LANGUAGES, default=DEFAULT_LANGUAGE)


#: the header that says which language a problem or the catalog is written in
CONTENT_LANGUAGE = {
    "description": "The language of the texts in the body (`en` or `tr`)",
    "schema": {"type": "string", "enum": list(LANGUAGES)},
}


#: every operation takes the language of its texts in ``Accept-Language``...
ACCEPT_LANGUAGE = {
    "in": "header",
    "name": "Accept-Language",
    "required": False,
    "schema": {"type": "string", "example": "tr"},
    "description": "The language of problems' `title` and `detail` and of the catalog's descriptions: "
    f"{', '.join(LANGUAGES)} (default {DEFAULT_LANGUAGE}). Codes never change with the language.",
}
#: ... or, for a client that cannot set headers, in ``lang``
LANG = {
    "in": "query",
    "name": "lang",
    "required": False,
    "schema": {"type": "string", "example": "tr"},
    "description": f"The language ({', '.join(LANGUAGES)}), for clients that cannot set `Accept-Language` "
    "(an EventSource, a link); wins over it, and any other value is ignored",
}


def install(app: Flask) -> None:
    @app.after_request
    def say_which_language(response: Response) -> Response:
        # only an answer with a text in it (a problem, the catalog) asked for the language
        if "language" in g:
            response.headers["Content-Language"] = g.language
            response.vary.add("Accept-Language")
        return response


#: the title of a problem in Turkish, by HTTP status (English uses the status phrase)
TURKISH_TITLES: Mapping[int, str] = {
    400: "Hatalı istek",
    401: "Kimlik doğrulanamadı",
    403: "Yasak",
    404: "Bulunamadı",
    405: "Yöntem kullanılamaz",
    406: "Kabul edilemez",
    408: "İstek zaman aşımına uğradı",
    409: "Çakışma",
    410: "Artık yok",
    412: "Ön koşul tutmadı",
    413: "İstek çok büyük",
    414: "Adres çok uzun",
    415: "Desteklenmeyen içerik türü",
    416: "İstenen aralık verilemez",
    417: "Beklenti karşılanamadı",
    422: "İşlenemeyen istek",
    426: "Yükseltme gerekli",
    428: "Ön koşul gerekli",
    429: "Çok fazla istek",
    431: "İstek başlıkları çok büyük",
    500: "Sunucu hatası",
    501: "Desteklenmiyor",
    503: "Hizmet kullanılamıyor",
}

#: the details of the service's problems, by name
DETAILS: Mapping[str, Text] = {
    "json_too_deep": {"en": "the body nests deeper than {limit} levels", "tr": "gövde {limit} düzeyden derin iç içe"},
    "number_too_large": {
        "en": "a number in the body has more than {limit} characters",
        "tr": "gövdedeki bir sayı {limit} karakterden uzun",
    },
    "invalid_text": {
        "en": "a text in the body is not well-formed Unicode (a lone surrogate)",
        "tr": "gövdedeki bir metin geçerli Unicode değil (eşsiz bir vekil karakter)",
    },
    "version_beyond": {
        "en": "'{field}' is later than any version: a match ends at version {limit} at the latest",
        "tr": "'{field}' hiçbir sürümden sonra gelemez: bir maç en geç {limit}. sürümde biter",
    },
    "last_event_id": {
        "en": "Last-Event-ID must be a version: a whole number, -1 or more",
        "tr": "Last-Event-ID bir sürüm olmalı: -1 ya da daha büyük bir tam sayı",
    },
    "if_match": {"en": 'If-Match must be "*" or entity tags such as W/"12"', "tr": 'If-Match, "*" ya da W/"12" gibi etiketler olmalı'},
    "invalid_token": {
        "en": "the token does not belong to a seat of this game",
        "tr": "bu belirteç bu oyunun hiçbir koltuğuna ait değil",
    },
    "bearer": {
        "en": "the Authorization header must be 'Bearer <seat token>'",
        "tr": "Authorization başlığı 'Bearer <koltuk belirteci>' biçiminde olmalı",
    },
    "missing_token": {
        "en": "this needs the seat's token: Authorization: Bearer <token>",
        "tr": "bunun için koltuğun belirteci gerekli: Authorization: Bearer <belirteç>",
    },
    "abandoned": {
        "en": "the match was abandoned: it ran longer than this service allows",
        "tr": "maç bırakıldı: bu hizmetin izin verdiğinden uzun sürdü",
    },
    "game_over": {"en": "the match is over", "tr": "maç bitti"},
    "forfeited": {
        "en": "the match was lost by forfeit: a seat let its clock run out",
        "tr": "maç hükmen kaybedildi: bir koltuk süresini doldurdu",
    },
    "waiting_for_players": {
        "en": "the game starts once every open seat is taken",
        "tr": "oyun, boş koltukların hepsi dolunca başlar",
    },
    "seat_not_open": {"en": "seat {seat} is not open any more: someone took it", "tr": "{seat}. koltuk artık boş değil: biri oturdu"},
    "computer_seat_never_open": {
        "en": "seat {seat} was never open: a computer plays it",
        "tr": "{seat}. koltuk hiç boş olmadı: onu bilgisayar oynuyor",
    },
    "human_seat_never_open": {
        "en": "seat {seat} was never open: its player received its token when the game was made",
        "tr": "{seat}. koltuk hiç boş olmadı: oyuncusu belirtecini oyun kurulurken aldı",
    },
    "seat_played_by_token": {
        "en": "seat {seat} is already played by its token",
        "tr": "{seat}. koltukta zaten belirteciyle oynanıyor",
    },
    "seat_left": {"en": "seat {seat} has already left to a computer", "tr": "{seat}. koltuk zaten bilgisayara bırakıldı"},
    "seat_left_acting": {
        "en": "seat {seat} left to a computer, which plays it now: take it back with its token first",
        "tr": "{seat}. koltuk bilgisayara bırakıldı, onu şimdi bilgisayar oynuyor: önce belirteciyle koltuğu geri alın",
    },
    "deadline_passed": {
        "en": "seat {seat}'s deadline passed before this action came: the timeout was applied instead (see the history)",
        "tr": "bu hamle gelmeden {seat}. koltuğun süresi doldu: hamlenin yerine süre aşımı uygulandı (geçmişe bakın)",
    },
    "too_many_waiting_games": {
        "en": "this address already keeps {cap} games waiting for players: withdraw one, or wait until one starts or expires",
        "tr": "bu adresin oyuncu bekleyen {cap} oyunu var zaten: birini geri çekin ya da biri başlayana veya süresi dolana dek bekleyin",
    },
    "join_code_missing": {
        "en": "seat {seat} needs its code: a private game's join code, as the game's creator passed it on, "
        "or for a rematch the seat's token in the match before",
        "tr": "{seat}. koltuğa koduyla oturulur: özel bir oyunda oyunu kuranın ilettiği katılma kodu, "
        "rövanşta koltuğun önceki maçtaki belirteci",
    },
    "join_code_wrong": {"en": "this code does not open seat {seat}", "tr": "bu kod {seat}. koltuğu açmıyor"},
    "unknown_seat": {"en": "this game has seats 0 to {last}", "tr": "bu oyunun koltukları 0 ile {last} arası"},
    "not_the_creator": {
        "en": "seat {seat} took its place after the game was made: only its creator may withdraw it",
        "tr": "{seat}. koltuk oyun kurulduktan sonra oturdu: oyunu yalnızca kuran geri çekebilir",
    },
    "game_started": {
        "en": "the game has started: a game is withdrawn only while it waits for players (leave it instead)",
        "tr": "oyun başladı: bir oyun ancak oyuncu beklerken geri çekilir (bunun yerine oyundan ayrılın)",
    },
    "rematch_too_soon": {"en": "a rematch is made once the match is over", "tr": "rövanş maç bitince yapılır"},
    "open_and_computer": {
        "en": "seat {seat} is open and a computer: a seat is one or the other",
        "tr": "{seat}. koltuk hem boş hem bilgisayar: bir koltuk ya biri ya öteki olur",
    },
    "not_your_seat": {"en": "the token belongs to another seat than {seat}", "tr": "belirteç {seat}. koltuğa değil, başka bir koltuğa ait"},
    "game_unreadable": {
        "en": "game {game} was stored by an earlier version of Koz and does not replay under the current rules",
        "tr": "{game} oyunu Koz'un eski bir sürümüyle saklandı; bugünkü kurallarla yeniden oynatılamıyor",
    },
    "not_shown": {"en": "the new game could not be shown; nothing was stored", "tr": "yeni oyun gösterilemedi; hiçbir şey saklanmadı"},
    "nearly_full": {
        "en": "no new games for now: the game store is nearly full",
        "tr": "şimdilik yeni oyun yok: oyun deposu dolmak üzere",
    },
    "store_full": {"en": "the game store is full; try again later", "tr": "oyun deposu dolu; sonra yeniden deneyin"},
    "unknown_game": {"en": "there is no game {game} (it may have expired)", "tr": "{game} diye bir oyun yok (süresi dolmuş olabilir)"},
    "read_failed": {"en": "could not read the game; try again", "tr": "oyun okunamadı; yeniden deneyin"},
    "store_failed": {"en": "could not store the new game; try again", "tr": "yeni oyun saklanamadı; yeniden deneyin"},
    "store_unavailable": {
        "en": "the game store is unavailable; try again shortly",
        "tr": "oyun deposuna ulaşılamıyor; biraz sonra yeniden deneyin",
    },
    "invalid_seats": {
        "en": "{ruleset} has {seat_count} seats, but {given} were given",
        "tr": "{ruleset} oyununda {seat_count} koltuk var, ama {given} koltuk verildi",
    },
    "stale_version": {
        "en": "the game is at version {version}, not the one in If-Match",
        "tr": "oyun {version}. sürümde; If-Match'teki sürümde değil",
    },
    "stale_message_version": {
        "en": "the game is at version {version}, not the one the act was decided on",
        "tr": "oyun {version}. sürümde; hamlenin karar verildiği sürümde değil",
    },
    "moved_on": {"en": "the game moved on to version {version} meanwhile", "tr": "oyun bu arada {version}. sürüme geçti"},
    "busy": {
        "en": "the game kept changing while this action was applied; try again",
        "tr": "hamle uygulanırken oyun durmadan değişti; yeniden deneyin",
    },
    "idempotency_key_reused": {
        "en": "this Idempotency-Key was used for a different action; use a new key for a new action",
        "tr": "bu Idempotency-Key başka bir hamlede kullanıldı; yeni hamleye yeni anahtar verin",
    },
    "idempotency_key_length": {
        "en": "an Idempotency-Key has 1 to {limit} characters",
        "tr": "Idempotency-Key 1 ile {limit} karakter arasında olur",
    },
    "storage_failed": {
        "en": "the embedded Redis died and could not be restarted; restart the service",
        "tr": "gömülü Redis durdu ve yeniden başlatılamadı; hizmeti yeniden başlatın",
    },
    "cluster_not_ready": {"en": "the Redis cluster is not ready", "tr": "Redis kümesi hazır değil"},
    "unsupported_media_type": {"en": "send the body as application/json", "tr": "gövdeyi application/json olarak gönderin"},
    "malformed_json": {"en": "the request body is not valid JSON", "tr": "istek gövdesi geçerli JSON değil"},
    "invalid_field": {"en": "{field}: {problem}", "tr": "{field}: {problem}"},
    "invalid_fields": {"en": "{field}: {problem} (and {others} more)", "tr": "{field}: {problem} (ve {others} alan daha)"},
    "invalid_request": {"en": "the request is not valid", "tr": "istek geçersiz"},
    "server_failed": {"en": "the server failed to answer this request", "tr": "sunucu bu isteği yanıtlayamadı"},
    # the problems of HTTP errors raised by the framework, by their code
    "malformed_request": {"en": "{description}", "tr": "istek anlaşılamadı"},
    "not_found": {"en": "{description}", "tr": "bu adreste bir şey yok"},
    "method_not_allowed": {"en": "{description}", "tr": "bu adres bu yöntemle kullanılamaz"},
    "not_acceptable": {"en": "{description}", "tr": "istenen biçimde yanıt verilemiyor"},
    "payload_too_large": {"en": "{description}", "tr": "istek gövdesi çok büyük"},
    "rate_limited": {"en": "{description}", "tr": "çok sık istek gönderildi; biraz bekleyin"},
    "http_error": {"en": "{description}", "tr": "istek yanıtlanamadı"},
    # the refusals of the HTTP server itself, before the app sees the request
    "not_http": {"en": "the request is not well-formed HTTP", "tr": "istek geçerli bir HTTP isteği değil"},
    "request_forbidden": {"en": "the request is forbidden", "tr": "bu isteğe izin verilmiyor"},
    "request_line_too_long": {
        "en": "the request line is longer than the server accepts",
        "tr": "istek satırı sunucunun kabul ettiğinden uzun",
    },
    "expect_unmet": {"en": "the server cannot meet the Expect header", "tr": "sunucu Expect başlığındaki isteği karşılayamıyor"},
    "headers_too_large": {
        "en": "a header, or the headers together, are larger than the server accepts",
        "tr": "bir başlık ya da başlıkların toplamı sunucunun kabul ettiğinden büyük",
    },
    "transfer_coding_unsupported": {
        "en": "the server does not support this transfer coding",
        "tr": "sunucu bu aktarım kodlamasını desteklemiyor",
    },
    "request_refused": {"en": "the request is not acceptable", "tr": "istek kabul edilemez"},
    "request_too_slow": {
        "en": "the request did not arrive whole in the time the server allows",
        "tr": "istek sunucunun tanıdığı süre içinde eksiksiz gelmedi",
    },
    "storage_busy": {
        "en": "the server has more requests waiting for its storage than it lets wait; ask again in a moment",
        "tr": "sunucuda depolamayı bekleyen istek sayısı sınırda; biraz sonra yeniden deneyin",
    },
    "hints_busy": {
        "en": "the server is working out as many hints as it may at once; ask again in a moment",
        "tr": "sunucu aynı anda verebileceği kadar ipucu hesaplıyor; biraz sonra yeniden sorun",
    },
    "too_many_streams": {
        "en": "this address holds as many event streams open as the server allows; close one first",
        "tr": "bu adres sunucunun izin verdiği kadar olay akışı açık tutuyor; önce birini kapatın",
    },
    "upgrade_required": {
        "en": "this address is played over a connection upgraded with \"Connection: Upgrade\" and \"Upgrade: websocket\" (version 13)",
        "tr": "bu adreste \"Connection: Upgrade\" ve \"Upgrade: websocket\" ile yükseltilmiş bir bağlantı üzerinden oynanır (sürüm 13)",
    },
    "websocket_handshake": {
        "en": "the connection's upgrade is malformed: its \"{header}\" header is missing or wrong",
        "tr": "bağlantının yükseltmesi hatalı: \"{header}\" başlığı eksik ya da yanlış",
    },
    "too_many_connections": {
        "en": "this address holds as many connections open as the server allows; close one first",
        "tr": "bu adres sunucunun izin verdiği kadar bağlantı açık tutuyor; önce birini kapatın",
    },
}


class FieldMessage(str):
    """A validation message of a field: the English text itself, so that marshmallow formats and
    keeps it as it does any message, carrying its text in every language Koz speaks."""

    texts: Text

    def __new__(cls, texts: Text) -> "FieldMessage":
        message = super().__new__(cls, texts[DEFAULT_LANGUAGE])
        message.texts = dict(texts)
        return message

    def format(self, *args: Any, **kwargs: Any) -> "FieldMessage":
        return FieldMessage({language: text.format(*args, **kwargs) for language, text in self.texts.items()})

    def __reduce__(self) -> tuple[Any, ...]:
        return FieldMessage, (self.texts,)

    def in_language(self, language: str) -> str:
        return self.texts.get(language, self.texts[DEFAULT_LANGUAGE])


def localized(messages: Any, language: str) -> Any:
    """Validation messages (lists, nested by field) with each one in ``language``."""
    if isinstance(messages, FieldMessage):
        return messages.in_language(language)
    if isinstance(messages, Mapping):
        return {key: localized(value, language) for key, value in messages.items()}
    if isinstance(messages, (list, tuple)):
        return [localized(value, language) for value in messages]
    return messages


#: marshmallow's validation messages in Turkish, by the class that defines each and its key (an
#: error message key of a field or schema, or the attribute holding a validator's message); the
#: English is marshmallow's own
TURKISH_FIELD_MESSAGES: Mapping[str, str] = {
    "Schema.type": "Geçersiz girdi türü.",
    "Schema.unknown": "Bilinmeyen alan.",
    "Field.required": "Bu alan gerekli.",
    "Field.null": "Bu alan null olamaz.",
    "Field.validator_failed": "Geçersiz değer.",
    "Nested.type": "Geçersiz tür.",
    "List.invalid": "Geçerli bir liste değil.",
    "Mapping.invalid": "Geçerli bir nesne değil.",
    "String.invalid": "Geçerli bir metin değil.",
    "String.invalid_utf8": "Geçerli bir UTF-8 metni değil.",
    "Number.invalid": "Geçerli bir sayı değil.",
    "Number.too_large": "Sayı çok büyük.",
    "Integer.invalid": "Geçerli bir tam sayı değil.",
    "Float.special": "Özel sayı değerleri (nan ya da sonsuz) kabul edilmez.",
    "Boolean.invalid": "Geçerli bir mantıksal değer değil: true ya da false olmalı.",
    "Range.message_min": "En az {min} olmalı.",
    "Range.message_max": "En çok {max} olmalı.",
    "Range.message_all": "{min} ile {max} arasında olmalı.",
    "Length.message_min": "Uzunluğu en az {min} olmalı.",
    "Length.message_max": "Uzunluğu en çok {max} olmalı.",
    "Length.message_all": "Uzunluğu {min} ile {max} arasında olmalı.",
    "Length.message_equal": "Uzunluğu {equal} olmalı.",
    "OneOf.error": "Şunlardan biri olmalı: {choices}.",
    "Equal.error": "{other} olmalı.",
    "Regexp.error": "Beklenen biçimde değil.",
}

#: the validation messages of Koz's own fields and headers, by name
FIELD_MESSAGES: Mapping[str, Text] = {
    "seed_type": {"en": "a seed is a string or an integer", "tr": "tohum bir metin ya da tam sayı olur"},
    "seed_length": {"en": "a seed has 1 to 128 characters", "tr": "tohum 1 ile 128 karakter arasında olur"},
    "name_not_unicode": {"en": "not well-formed Unicode", "tr": "geçerli Unicode değil"},
    "name_characters": {
        "en": "a name has no control, format, private-use or unassigned characters",
        "tr": "bir adda denetim, biçim, özel kullanım ya da atanmamış karakter olmaz",
    },
    "if_match": {"en": '"*" or entity tags such as W/"12"', "tr": '"*" ya da W/"12" gibi varlık etiketleri'},
    "idempotency_key_length": {"en": "1 to {limit} characters", "tr": "1 ile {limit} karakter arası"},
    "last_event_id": {"en": "-1 or a whole number", "tr": "-1 ya da bir tam sayı"},
    "echoable_id": {"en": "a string or an integer of at most {limit} characters", "tr": "en çok {limit} karakterlik bir metin ya da tam sayı"},
    "version_beyond": {"en": "at most {limit}", "tr": "en çok {limit}"},
    "seat_without_form": {
        "en": "a seat takes one of 'name' (a person), 'bot' (a computer) or 'open': true (a seat to take later)",
        "tr": "bir koltuk 'name' (bir kişi), 'bot' (bilgisayar) ya da 'open': true (sonra alınacak koltuk) alanlarından birini alır",
    },
    "seat_with_forms": {
        "en": "a seat takes only one of 'name', 'bot' or 'open': true",
        "tr": "bir koltuk 'name', 'bot' ya da 'open': true alanlarından yalnız birini alır",
    },
}
