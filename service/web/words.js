// The page's own words in Turkish and English. The games' words (games, options, option values,
// seats, levels, suits and cards) come from the catalog, in the language the page asks in.

const TEXTS = {
  tr: {
    switchTo: "English", tagline: "Kâğıt oyunları: bilgisayara karşı ya da arkadaşlarınla", playComputer: "Bilgisayarla Oyna",
    yourName: "Adın", you: "Sen", guest: "Misafir", level: "Bilgisayar seviyesi", start: "BAŞLA", seed: "Deste tohumu (isteğe bağlı)",
    more: "Diğer seçenekler", home: "Ana sayfa", loading: "Yükleniyor…", yourTurn: "Sıra sende",
    turnOf: (name) => `Sıra: ${name}`, thinking: "bilgisayar düşünüyor…", waitingFor: (name) => `${name} bekleniyor`,
    eitherMay: "66 ilanı: sen ya da rakip",
    trump: "Koz", noTrump: "Kozsuz", faceUp: "Açık kart", stock: "Deste", talon: "Talon", talonClosed: "kapalı",
    closedBy: (name) => `kapatan: ${name}`, trumpCard: "Koz kartı", cards: (n) => `${n} kart`, tricks: "Löve",
    score: "Puan", target: "Hedef", singleDeal: "tek el", deal: (n) => `${n}. el`, dealer: "Dağıtan", points: "Kart puanı",
    phase: (n) => `${n}. aşama`, auction: "İhale", pass: "Pas", bid: (n) => `${n} söyle`, contract: "Söz",
    declarer: "İhaleci", openHand: "Açık el", trumpChoice: (suit) => `Koz: ${suit}`, chooseTrump: "Kozu seç",
    lastTrick: "Son löve", showLastTrick: "Son löveyi göster", hideLastTrick: "Son löveyi gizle",
    winner: (name) => `alan: ${name}`, hint: "İpucu", hintIs: (what) => `İpucu: ${what}`, hintWait: "İpucu: bekle, sırayı rakibe bırak",
    refused: "Sunucu reddetti", exchange: "Koz değiş", close: "Talonu kapat", declare: "66!",
    marriage: (points, card) => `Evlilik ${points}: ${card}`, marriageDeclare: (points, card) => `Evlilik ${points} + 66!: ${card}`,
    pending: "evlilik puanı bekliyor", finished: "Maç bitti", youWon: "Kazandın!", youLost: "Kaybettin.", drawn: "Berabere.",
    winners: (names) => `Kazanan: ${names}`, history: "Maç geçmişi", reveal: "Dağıtılan kartlar", seedWord: "tohum", newGame: "Yeni oyun",
    lastDeal: (n) => `${n}. elin sonucu`, dealOver: (n) => `${n}. el bitti`, moveOn: "Devam", made: "Söz tutuldu", failed: "Söz tutmadı",
    sweep: "13 löve",
    reasons: { claim: "66 ilanı", false_claim: "yanlış 66 ilanı", closer_failed: "kapatan 66'ya ulaşamadı",
      last_trick: "son löve", more_points: "daha çok puan", drawn: "berabere" },
    stockOrder: "Deste sırası", computer: "Bilgisayar", team: "Takım", us: "biz",
    targetZero: "0: tek el", error: "Bir hata oldu", unknownGame: "Bu oyun bulunamadı.",
    // playing together
    playFriends: "Arkadaşlarla oyna", openTables: "Açık masalar", seatsTitle: "Koltuklar", yourSeat: "Senin koltuğun",
    friend: "Arkadaş (davetle)", computerAt: (level) => `Bilgisayar: ${level}`, privateTable: "Özel masa (yalnız davetliler; listelenmez)",
    timed: "Süreli masa", perAction: "Hamle başına süre", bank: "Yedek süre", onTimeout: "Süre dolunca",
    untimed: "süresiz", seconds: (n) => `${n} sn`, minutes: (n) => `${n} dk`,
    timeoutComputer: "bilgisayar oynar", timeoutForfeit: "maç kaybedilir", createTable: "MASAYI KUR",
    waitingRoom: "Bekleme odası", waitingHint: "Son koltuk dolunca oyun kendiliğinden başlar.",
    openSeat: "boş", invitation: (seat) => `${seat} için davet bağlantısı`, copy: "Kopyala", copied: "Kopyalandı",
    watchLink: "İzleme bağlantısı", watch: "İzle", withdraw: "Daveti geri çek", withdrawn: "Bu davet geri çekildi.",
    joinTitle: (game) => `${game} masasına davet`, joinAs: (seat) => `Koltuk: ${seat}`, sit: "OTUR",
    seatTaken: "Bu koltuk dolu: başkası oturdu.", badCode: "Davet kodu yanlış.", alreadyStarted: "Bu oyun başladı; koltuk artık boş değil.",
    noSuchSeat: "Bu masada böyle bir koltuk yok.", goHome: "Ana sayfaya dön",
    lobbyEmpty: "Şu an bekleyen açık masa yok.", waited: (words) => `${words} önce kuruldu`,
    sitAt: (seat) => `${seat} koltuğuna otur`, justNow: "az", refreshed: "kendiliğinden yenilenir",
    spectating: "İzliyorsun: elleri göremezsin, oynayamazsın.",
    leave: "Masadan kalk", takeBack: "Masaya dön", leftTag: "kalktı: bilgisayar oynuyor",
    youLeft: "Masadan kalktın: yerine bilgisayar oynuyor.",
    rematch: "Rövanş", rematchAsked: (names) => `Rövanş isteyenler: ${names}`, rematchWaiting: "Rövanş: herkesin istemesi bekleniyor; herkes isteyince başlar.", notYet: "henüz istemedi",
    clockOf: (name) => `${name}: süre`, bankLeft: (time) => `yedek ${time}`,
    timeoutPlayed: (name) => `${genitive(name)} süresi doldu: bilgisayar oynadı`,
    forfeited: (side) => `Süre doldu: ${side} kaybetti`, abandoned: "Maç yarıda kaldı: izin verilen uzunluğu aştı. Kazanan yok.",
    leftAnnounce: (name) => `${name} masadan kalktı: bilgisayar oynuyor`, rejoinedAnnounce: (name) => `${name} masaya döndü`,
    tookSeat: (name) => `${name} masaya oturdu`, yes: "evet", no: "hayır", summary: "Özet",
    // the arena's leaderboard
    leaderboard: "Sıralama", leaderboardOf: "Oyuna göre sıralama", establishedBoard: "Sıralamadakiler", provisionalBoard: "Yeni hesaplar",
    provisionalNote: "10'dan az puanlı maç oynamış hesaplar: puanları henüz kesin değil, sıralamaya ayrı girerler.",
    leaderboardNote: "Arenada botlar ve kişiler puanlı maçlarda karşılaşır; sıra, puandan üç belirsizlik çıkarılarak belirlenir.",
    rank: "Sıra", accountName: "Hesap", accountKind: "Tür", rating: "Puan", uncertainty: "Belirsizlik", ratedGames: "Puanlı maç",
    kinds: { bot: "bot", person: "kişi", house: "Koz (bilgisayar)" }, moreEntries: "Devamını göster",
    noEstablished: "Bu oyunda sıralamaya girecek kadar maç oynamış hesap henüz yok.", noProvisional: "Yeni hesap yok.",
    // a person's account in the arena
    myAccount: "Hesabım", takeAccount: "Arena hesabı aç", createAccount: "HESAP AÇ",
    accountNote: "Hesabın bu tarayıcıda saklanır; arenada puanlı maçlarda botlarla, kişilerle ve Koz'un oyuncularıyla karşılaşırsın.",
    gamesPlayed: (n) => `Bitirilen arena maçı: ${n}`, ratingsTitle: "Oyuna göre puanın", noRatings: "Henüz puanlı maç oynamadın.",
    game: "Oyun", record: "G / M / B", winsLossesDraws: (wins, losses, draws) => `${wins} / ${losses} / ${draws}`,
    lastGames: "Son maçların", noGamesYet: "Henüz maç oynamadın.", opponents: "Rakipler", outcome: "Sonuç",
    ratingChange: "Puan değişimi", theGame: "Maç", openGame: "Maçı aç", unrated: "puansız",
    outcomes: { win: "kazandın", loss: "kaybettin", draw: "berabere" },
    seekTitle: "Puanlı maç ara", houseAfter: "Kimse gelmezse Koz'un oyuncusuyla oyna", never: "hiç", seekButton: "MAÇ ARA",
    seeking: (game) => `${game} için rakip aranıyor…`, stopSeeking: "Aramayı bırak", seekStopped: "Arama bırakıldı.",
    seekExpired: "Arama süresi doldu: eşleşme olmadı.", matchStarted: (game, names) => `${game} maçın başladı: ${names}`,
    partner: "Ortağın (boş bırakırsan kurayla; o da seni yazmalı)", besides: (name) => `(ortağın ${name})`,
    lastMatch: "Son maç",
  },
  en: {
    switchTo: "Türkçe", tagline: "Card games against the computer or with friends", playComputer: "Play the computer",
    yourName: "Your name", you: "You", guest: "Guest", level: "Computer level", start: "START", seed: "Deal seed (optional)",
    more: "More options", home: "Home", loading: "Loading…", yourTurn: "Your turn",
    turnOf: (name) => `Turn: ${name}`, thinking: "the computer is thinking…", waitingFor: (name) => `Waiting for ${name}`,
    eitherMay: "Claim 66: you or your opponent",
    trump: "Trump", noTrump: "No trump", faceUp: "Face-up card", stock: "Stock", talon: "Talon", talonClosed: "closed",
    closedBy: (name) => `closed by ${name}`, trumpCard: "Trump card", cards: (n) => (n === 1 ? "1 card" : `${n} cards`), tricks: "Tricks",
    score: "Score", target: "Target", singleDeal: "single deal", deal: (n) => `Deal ${n}`, dealer: "Dealer", points: "Card points",
    phase: (n) => `phase ${n}`, auction: "Auction", pass: "Pass", bid: (n) => `Bid ${n}`, contract: "Contract",
    declarer: "Declarer", openHand: "Open hand", trumpChoice: (suit) => `Trump: ${suit}`, chooseTrump: "Name trump",
    lastTrick: "Last trick", showLastTrick: "Show last trick", hideLastTrick: "Hide last trick",
    winner: (name) => `won by ${name}`, hint: "Hint", hintIs: (what) => `Hint: ${what}`, hintWait: "Hint: wait, leave it to your opponent",
    refused: "The server refused", exchange: "Exchange trump", close: "Close the talon", declare: "66!",
    marriage: (points, card) => `Marriage ${points}: ${card}`, marriageDeclare: (points, card) => `Marriage ${points} + 66!: ${card}`,
    pending: "marriage points pending", finished: "Match over", youWon: "You won!", youLost: "You lost.", drawn: "A draw.",
    winners: (names) => `Won by ${names}`, history: "Match history", reveal: "The deals as dealt", seedWord: "seed", newGame: "New game",
    lastDeal: (n) => `Deal ${n} result`, dealOver: (n) => `Deal ${n} is over`, moveOn: "Continue", made: "Contract made", failed: "Contract failed",
    sweep: "all 13 tricks",
    reasons: { claim: "66 claimed", false_claim: "false claim", closer_failed: "the closer missed 66",
      last_trick: "last trick", more_points: "more points", drawn: "drawn" },
    stockOrder: "Stock order", computer: "Computer", team: "Team", us: "us",
    targetZero: "0: a single deal", error: "Something went wrong", unknownGame: "There is no such game.",
    playFriends: "Play with friends", openTables: "Open tables", seatsTitle: "Seats", yourSeat: "Your seat",
    friend: "A friend (invited)", computerAt: (level) => `Computer: ${level}`, privateTable: "Private table (invited only; not listed)",
    timed: "Timed table", perAction: "Time per action", bank: "Time bank", onTimeout: "When time runs out",
    untimed: "untimed", seconds: (n) => `${n} s`, minutes: (n) => `${n} min`,
    timeoutComputer: "the computer plays", timeoutForfeit: "the match is lost", createTable: "SET UP THE TABLE",
    waitingRoom: "Waiting room", waitingHint: "The game starts by itself once the last seat is taken.",
    openSeat: "open", invitation: (seat) => `Invitation link for ${seat}`, copy: "Copy", copied: "Copied",
    watchLink: "Watch link", watch: "Watch", withdraw: "Withdraw the invitation", withdrawn: "This invitation was withdrawn.",
    joinTitle: (game) => `An invitation to ${game}`, joinAs: (seat) => `Seat: ${seat}`, sit: "SIT DOWN",
    seatTaken: "This seat is taken: someone else sat there.", badCode: "The invitation code is wrong.",
    alreadyStarted: "This game has started; the seat is no longer open.", noSuchSeat: "This table has no such seat.", goHome: "Back to the home page",
    lobbyEmpty: "No open table is waiting right now.", waited: (words) => `set up ${words} ago`,
    sitAt: (seat) => `Sit at ${seat}`, justNow: "moments", refreshed: "refreshes by itself",
    spectating: "You are watching: you see no hand and cannot play.",
    leave: "Leave the table", takeBack: "Take my seat back", leftTag: "left: the computer plays",
    youLeft: "You left the table: the computer plays your seat.",
    rematch: "Rematch", rematchAsked: (names) => `Rematch asked by ${names}`, rematchWaiting: "Rematch: it starts once everyone has asked.", notYet: "has not asked yet",
    clockOf: (name) => `${name}'s clock`, bankLeft: (time) => `bank ${time}`,
    timeoutPlayed: (name) => `${name}'s time ran out: the computer played`,
    forfeited: (side) => `Time ran out: ${side} lost`, abandoned: "The match was abandoned: it ran past the allowed length. No winner.",
    leftAnnounce: (name) => `${name} left the table: the computer plays`, rejoinedAnnounce: (name) => `${name} is back at the table`,
    tookSeat: (name) => `${name} sat down`, yes: "yes", no: "no", summary: "Summary",
    leaderboard: "Leaderboard", leaderboardOf: "Leaderboard by game", establishedBoard: "Ranked", provisionalBoard: "New accounts",
    provisionalNote: "Accounts with fewer than 10 rated matches: their ratings are not settled yet, so they are listed apart.",
    leaderboardNote: "In the arena bots and people meet in rated matches; the order is the rating minus three uncertainties.",
    rank: "Rank", accountName: "Account", accountKind: "Kind", rating: "Rating", uncertainty: "Uncertainty", ratedGames: "Rated matches",
    kinds: { bot: "bot", person: "person", house: "Koz (computer)" }, moreEntries: "Show more",
    noEstablished: "No account has played enough matches of this game to be ranked yet.", noProvisional: "No new account.",
    myAccount: "My account", takeAccount: "Take an arena account", createAccount: "CREATE THE ACCOUNT",
    accountNote: "Your account is kept in this browser; in the arena you meet bots, people and Koz's players in rated matches.",
    gamesPlayed: (n) => `Arena matches finished: ${n}`, ratingsTitle: "Your rating by game", noRatings: "No rated match played yet.",
    game: "Game", record: "W / L / D", winsLossesDraws: (wins, losses, draws) => `${wins} / ${losses} / ${draws}`,
    lastGames: "Your last matches", noGamesYet: "No match played yet.", opponents: "Opponents", outcome: "Result",
    ratingChange: "Rating change", theGame: "Match", openGame: "Open the match", unrated: "unrated",
    outcomes: { win: "won", loss: "lost", draw: "drawn" },
    seekTitle: "Seek a rated match", houseAfter: "If no one comes, play Koz's player after", never: "never", seekButton: "SEEK A MATCH",
    seeking: (game) => `Seeking an opponent for ${game}…`, stopSeeking: "Stop seeking", seekStopped: "Seeking stopped.",
    seekExpired: "The seek ran out of time: no pairing.", matchStarted: (game, names) => `Your ${game} match started: ${names}`,
    partner: "Your partner (empty: drawn; they must name you too)", besides: (name) => `(beside ${name})`,
    lastMatch: "Last match",
  },
};

export const language = { current: localStorage.getItem("koz:lang") || "tr" };

export function setLanguage(lang) {
  language.current = lang;
  localStorage.setItem("koz:lang", lang);
  document.documentElement.lang = lang;
}

export function text(key, ...args) {
  const value = TEXTS[language.current][key];
  return typeof value === "function" ? value(...args) : value;
}

/** A catalog entry's name in the page's language. */
export function named(names) {
  return names ? names[language.current] || names.en : "";
}

export const TEAM_NAMES = [{ tr: "Kuzey-Güney", en: "North-South" }, { tr: "Doğu-Batı", en: "East-West" }];

/** A Turkish name in the genitive, its suffix after an apostrophe by vowel harmony (Doğu'nun, Ayşe'nin, Ali'nin). */
function genitive(name) {
  const vowels = [...name.toLocaleLowerCase("tr")].filter((letter) => "aeıioöuü".includes(letter));
  const last = vowels.length ? vowels[vowels.length - 1] : "e";
  const vowel = { a: "ı", ı: "ı", e: "i", i: "i", o: "u", u: "u", ö: "ü", ü: "ü" }[last];
  const endsInVowel = "aeıioöuü".includes(name.slice(-1).toLocaleLowerCase("tr"));
  return `${name}'${endsInVowel ? "n" : ""}${vowel}n`;
}
