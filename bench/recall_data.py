"""Writes the recall benchmark's conversation data set (bench/data/recall/), reproducibly.

One user talks to an assistant over dated sessions. The user mentions facts about
themselves and the people and animals around them in varied phrasings, past events with
relative dates ("last Friday"), facts that change later (a move, a new job, a new
favourite), and facts that only answer a question together with another turn (multi-hop).
Between them: small talk, thanks, promises, questions to the assistant, facts about other
people that look like the user's (distractors), and assistant replies that mention other
names. The question file names, per question, its kind, the accepted answers and the ids
of the evidence turns.

    python bench/recall_data.py            # rewrites bench/data/recall/*.jsonl (seed 11)

Files:
  conversations.jsonl  one turn per line: {"id","session","ts","user","assistant","label"}
                       label: "fact" (states something about the user) or "none" (small talk,
                       questions, promises, other people only) — the junk-rate sample
  questions.jsonl      {"id","kind","question","answers":[...],"evidence":[turn ids],"as_of"}
                       kind: single | event_date | event | changed | changed_before | multi_hop.
                       "as_of" is the date the answer holds on (the last session). Add more
                       kinds (e.g. "changed over time") by appending lines; recall.py groups by kind.
                       A "changed" question may name the values it replaced: "old": [...].
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "recall"
START = dt.date(2026, 3, 2)
SESSIONS = 24

NAMES = ("Maya Theo Priya Jonas Ines Kofi Lena Mateo Sana Oskar Yuki Farah Bruno Elif Dmitri Nora Tomas Aiko Rafael "
         "Hana Luca Zara Emeka Freya Ravi Selin Pavel Greta Hugo Amara Felix Leila Ivo Mei Colm Rosa Anders Nadia").split()
CITIES = ("Lisbon Denver Austin Leeds Porto Kyoto Tallinn Oaxaca Ghent Bergen Tucson Valencia Krakow Halifax Nantes "
          "Graz Adelaide Malmo Bilbao Dundee Quebec Trieste Osaka Galway Tbilisi Cork Lyon Bologna Aarhus Boise "
          "Perth Utrecht Seville Ljubljana Hobart Bergamo Fukuoka Savannah Innsbruck Rotterdam").split()
COMPANIES = ("Stripe Contoso Northwind Fabrikam Initech Globex Umbrella Hooli Vandelay Wonka Acme Soylent Cyberdyne "
             "Tyrell Wayfarer Blueleaf Monarch Kestrel").split()
JOBS = ("nurse", "data engineer", "carpenter", "pharmacist", "teacher", "architect", "paramedic", "baker",
        "translator", "physiotherapist", "sound engineer", "librarian", "welder", "copywriter")
RELATIONS = ("sister", "brother", "cousin", "aunt", "uncle", "niece", "nephew", "best friend", "neighbour", "boss",
             "roommate", "godmother", "grandfather", "personal trainer", "stepdad", "mentor", "landlord", "colleague")
ANIMALS = ("dog", "cat", "rabbit", "parrot", "tortoise")
PET_NAMES = "Biscuit Miso Pepper Juniper Waffles Tofu Olive Pickles Nutmeg Ziggy Clementine Dumpling".split()
FAVOURITES = {
    "book": ("Piranesi", "The Remains of the Day", "Dune", "Middlemarch", "Circe", "Stoner", "The Hobbit"),
    "band": ("Radiohead", "Khruangbin", "Fleetwood Mac", "Bon Iver", "Portishead", "The National", "Beach House"),
    "dish": ("pad thai", "shakshuka", "ramen", "pierogi", "bibimbap", "paella", "moussaka"),
    "film": ("Spirited Away", "Heat", "Amelie", "Arrival", "Paddington 2", "Alien", "Parasite"),
    "board game": ("Wingspan", "Catan", "Azul", "Carcassonne", "Pandemic", "Root", "Codenames"),
    "podcast": ("Radiolab", "Hardcore History", "99% Invisible", "Reply All", "Song Exploder", "Planet Money"),
}
HOBBIES = ("bouldering", "swimming", "pottery", "chess", "salsa dancing", "trail running", "rowing", "choir practice",
           "yoga", "fencing", "birdwatching", "kayaking")
FREQUENCIES = ("once a week", "twice a week", "every Sunday", "three times a week", "every other weekend",
               "once a month", "every Tuesday", "every morning")
LANGUAGES = ("Japanese", "Portuguese", "Turkish", "Welsh", "Korean", "Dutch", "Swahili", "Icelandic")
ALLERGIES = ("peanuts", "shellfish", "penicillin", "cats", "kiwi", "sesame", "latex")
# Event families: (what the user says, date-question stem, what-question, answer slot, pool of the unique item).
# Each item of a pool is used once, so every question has one answer.
EVENTS = [
    ("lost my {item} at {place}", "lose their {item}", "Where did the user lose their {item}?", "place",
     ("wallet", "keys", "umbrella", "sunglasses", "headphones", "library card", "passport", "scarf")),
    ("bought a {item} at {place}", "buy the {item}", "Where did the user buy the {item}?", "place",
     ("standing desk", "espresso machine", "telescope", "sewing machine", "record player", "rowing machine")),
    ("went to {name}'s {item} in {city}", "go to {name}'s {item}", "In which city was {name}'s {item}?", "city",
     ("wedding", "graduation", "housewarming", "retirement party", "baby shower", "40th birthday")),
    ("{item} playing {sport}", "get hurt ({item})", "What was the user doing when they {item}?", "sport",
     ("twisted my ankle", "sprained my wrist", "pulled a muscle in my back", "bruised my knee", "cut my thumb")),
    ("saw {item} live at {place}", "see {item} live", "Where did the user see {item} live?", "place",
     ("Radiohead", "Khruangbin", "Bon Iver", "Portishead", "The National", "Beach House")),
    ("ran the {item} half marathon in {time}", "run the {item} half marathon",
     "What was the user's time in the {item} half marathon?", "time", ("Valencia", "Leeds", "Porto", "Tallinn")),
    ("visited my {item} in {city}", "visit their {item}", "Where does the user's {item} live?", "city",
     ("grandmother", "godfather", "old piano teacher", "college roommate")),
    ("cooked {dish} for {item}", "cook for {item}", "What did the user cook for {item}?", "dish",
     ("Ines", "Kofi", "Lena", "Mateo", "Sana")),
    ("got my {item} certificate after a course at {place}", "get their {item} certificate",
     "Where did the user take the {item} course?", "place",
     ("scuba diving", "first aid", "food hygiene", "sign language", "beekeeping")),
    ("started {item} classes at {place}", "start {item} classes", "Where does the user take {item} classes?",
     "place", ("improv", "welding", "watercolour", "ceramics", "tango")),
    ("finished building {thing} for {item}", "finish building something for {item}",
     "What did the user build for {item}?", "thing", ("my nephew", "the garden", "my partner", "the allotment")),
    ("adopted a {item} called {pet}", "adopt the {item}", "What is the name of the {item} the user adopted?", "pet",
     ("puppy", "kitten", "guinea pig")),
    ("got a flat tyre on the way to {city}", "get a flat tyre", "Where was the user driving when they got a flat tyre?",
     "city", ("",)),
    ("won {item} at {place}", "win {item}", "Where did the user win {item}?", "place",
     ("a pub quiz", "a chili cook-off", "a raffle", "a chess tournament")),
    ("had dinner with {item} at {place}", "have dinner with {item}", "Where did the user have dinner with {item}?",
     "place", ("Oskar", "Yuki", "Farah", "Elif", "Tomas")),
    ("flew to {city} for {item}", "fly out for {item}", "Where did the user fly for {item}?", "city",
     ("a job interview", "a conference", "a funeral", "a hen party", "a football match")),
    ("got {item} as a present from {name}", "get {item} as a present", "Who gave the user {item}?", "name",
     ("a bonsai tree", "a hand-knitted jumper", "a signed cricket bat", "a vintage typewriter")),
    ("repainted the {item} {colour}", "repaint the {item}", "What colour did the user paint the {item}?", "colour",
     ("kitchen", "front door", "bathroom", "garden shed", "hallway")),
]
COLOURS = ("sage green", "mustard yellow", "navy blue", "terracotta", "dusty pink", "charcoal grey")
SPORTS = ("five-a-side football", "squash", "ultimate frisbee", "badminton", "basketball", "tennis", "volleyball")
TIMES = ("1:52", "2:04", "1:47", "1:58", "2:11")
PLACES = ("the Riverside climbing gym", "Harbour Street market", "the Elm Road dental clinic", "the Old Mill pub",
          "the botanical gardens", "the Greenway food bank", "Carlton Park", "the Northgate library",
          "the Fox and Hound", "the Saturday flea market", "St. Anne's community centre", "the Lakeside cafe",
          "the Queens Road animal shelter", "the ferry terminal", "the Westfield bowling alley")
THINGS = ("a hummingbird", "a bookshelf", "a sailboat", "a skateboard", "a greenhouse", "a lighthouse", "a treehouse",
          "a ladder", "a canoe", "a wooden bench", "a fern", "a bicycle")
CARS = ("Honda Civic", "Volvo V70", "Toyota Prius", "Skoda Octavia", "Mazda 3", "Fiat Panda", "Subaru Outback")
RELDAYS = [("yesterday", 1), ("the day before yesterday", 2), ("three days ago", 3), ("last week", None),
           ("two days ago", 2), ("last {weekday}", "weekday"), ("this morning", 0), ("last night", 1)]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

SMALL_TALK = [
    ("thanks, that's really helpful!", "You're welcome!"), ("haha fair enough", "Glad that made sense."),
    ("good morning!", "Good morning! What's on your mind today?"), ("ok cool", "Anything else?"),
    ("I'll let you know how it goes.", "Please do, I'd love to hear."), ("thank you so much", "Any time."),
    ("lol yes exactly", "Ha, right?"), ("I'll think about it and get back to you.", "Sure, no rush."),
    ("Sounds good, talk later", "Talk soon!"), ("hmm I'm not sure", "Take your time."),
]
USER_QUESTIONS = [
    ("How long should I boil an egg for a runny yolk?", "About six minutes from boiling water."),
    ("what's a good name for a sourdough starter", "People like puns, for example 'Clint Yeastwood'."),
    ("Can you explain what a Roth IRA is?", "It's a retirement account funded with taxed income."),
    ("Is it ok to water succulents every day?", "No, let the soil dry out between waterings."),
    ("Any tips for sleeping on a plane?", "A neck pillow, earplugs and avoiding caffeine help."),
    ("How do I get red wine out of a carpet?", "Blot it, then use cold water and a little dish soap."),
    ("What's the capital of Mongolia?", "Ulaanbaatar."), ("How many cups are in a litre?", "About 4.2 US cups."),
    ("Could you recommend a podcast about history?", "Many people enjoy The Rest Is History."),
    ("why is the sky blue", "Rayleigh scattering: shorter wavelengths scatter more."),
]
OTHER_PEOPLE = [
    "My coworker {name} is obsessed with {band}.", "{name} from my office just moved to {city}.",
    "A friend of a friend, {name}, works as a {job} at {company}.", "My neighbour's kid {name} loves {dish}.",
    "{name} at the gym keeps talking about {film}.", "Someone in my book club, {name}, is reading {book}.",
]
ACKS = ["That sounds great!", "Oh no, I'm sorry to hear that.", "Nice, thanks for sharing.", "How exciting!",
        "Got it, I'll remember that.", "That's lovely.", "Wow, good for you."]


class World:
    """Everything true about the user, drawn once so every fact has one answer."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.names = list(NAMES)
        rng.shuffle(self.names)
        self.cities = list(CITIES)
        rng.shuffle(self.cities)

    def name(self) -> str:
        return self.names.pop()

    def city(self) -> str:
        return self.cities.pop()


def _turns_per_session(rng: random.Random) -> list[int]:
    return [rng.randint(13, 17) for _ in range(SESSIONS)]


def _session_dates(rng: random.Random) -> list[dt.date]:
    dates, day = [], START
    for _ in range(SESSIONS):
        dates.append(day)
        day += dt.timedelta(days=rng.randint(2, 5))
    return dates


def _casual(rng: random.Random, text: str) -> str:
    """Some turns are typed casually: lower-case start, no final full stop."""
    if rng.random() < 0.25:
        text = text[0].lower() + text[1:]
    if rng.random() < 0.2 and text.endswith("."):
        text = text[:-1]
    return text


def build(seed: int = 11) -> tuple[list[dict], list[dict]]:
    rng = random.Random(seed)
    world = World(rng)
    dates = _session_dates(rng)
    last = dates[-1].isoformat()
    facts: list[dict] = []  # {"user", "questions", "session" (min index), "after" (turn id key)}

    def q(kind: str, question: str, answers: list[str], *extra: str) -> dict:
        return {"kind": kind, "question": question, "answers": answers, "extra_evidence": list(extra)}

    # people around the user, with a name, a city and a job; later news about them (multi-hop)
    people = {}
    for relation in RELATIONS:
        name, city, job = world.name(), world.city(), rng.choice(JOBS)
        people[relation] = (name, city, job)
        key = f"rel-{relation}"
        said = rng.choice([
            f"My {relation} {name} lives in {city} and works as a {job}.",
            f"My {relation} {name} is a {job} up in {city}.",
            f"{name}, my {relation}, has lived in {city} for years; she's a {job}." if relation in
            ("sister", "aunt", "niece") else f"{name}, my {relation}, has lived in {city} for years, working as a {job}.",
        ])
        facts.append({"key": key, "user": said, "questions": [
            q("single", f"What is the name of the user's {relation}?", [name]),
            q("single", f"Which city does the user's {relation} live in?", [city]),
            q("single", f"What does the user's {relation} do for work?", [job]),
        ]})
        engaged = world.city()
        facts.append({"key": f"engaged-{relation}", "after": key, "user": rng.choice([
            f"{name} got engaged in {engaged} over the weekend!", f"Did I tell you {name} is getting married? "
            f"The proposal was in {engaged}."]), "questions": [
            q("multi_hop", f"Where did the user's {relation} get engaged?", [engaged], key)]})
        news_thing = rng.choice(THINGS)
        news = rng.choice([
            f"{name} just bought {news_thing}, can you believe it.",
            f"Big news from {name}: they bought {news_thing}!",
        ])
        facts.append({"key": f"news-{relation}", "after": key, "user": news, "questions": [
            q("multi_hop", f"What did the user's {relation} just buy?", [news_thing.split(" ", 1)[1]], key),
        ]})
    # pets
    pet_names = list(PET_NAMES)
    rng.shuffle(pet_names)
    for animal in ANIMALS:
        pet = pet_names.pop()
        key = f"pet-{animal}"
        said = rng.choice([
            f"Our {animal} {pet} chewed through another phone charger today.",
            f"{pet}, my {animal}, hates thunderstorms.",
            f"I have a {animal} named {pet} who follows me everywhere.",
        ])
        clinic = rng.choice(PLACES)
        facts.append({"key": key, "user": said, "questions": [q("single", f"What is the name of the user's {animal}?", [pet])]})
        facts.append({"key": f"vet-{animal}", "after": key, "user": f"{pet} had a check-up at {clinic} and is fine.",
                      "questions": [q("multi_hop", f"Where did the user's {animal} have a check-up?", [clinic], key)]})
    # favourites (one of them changes later)
    for kind, values in FAVOURITES.items():
        first, second = rng.sample(values, 2)
        said = rng.choice([
            f"{first} is a favourite of mine.", f"My favourite {kind} has to be {first}.",
            f"Honestly nothing beats {first}, it's my favourite {kind}.", f"I really love {first}.",
        ])
        key = f"fav-{kind}"
        if kind in ("band", "dish", "podcast"):
            facts.append({"key": key, "user": said, "questions": [
                q("changed_before", f"What was the user's favourite {kind} before {second}?", [first])]})
            facts.append({"key": f"fav2-{kind}", "after": key,
                          "user": f"I used to love {first} but these days my favourite {kind} is {second}.",
                          "questions": [q("changed", f"What is the user's favourite {kind} now?", [second])]})
        else:
            facts.append({"key": key, "user": said, "questions": [q("single", f"What is the user's favourite {kind}?", [first])]})
    # hobbies with frequencies, language, reading, allergy
    for hobby in HOBBIES:
        freq = rng.choice(FREQUENCIES)
        said = rng.choice([f"I go {hobby} {freq}.", f"I do {hobby} {freq} these days.", f"{freq.capitalize()} I do {hobby}."])
        facts.append({"key": f"hobby-{hobby}", "user": said, "questions": [
            q("single", f"How often does the user do {hobby}?", [freq])]})
    language = rng.choice(LANGUAGES)
    facts.append({"key": "lang", "user": f"I'm currently learning {language} with an app, twenty minutes a day.",
                  "questions": [q("single", "Which language is the user learning?", [language])]})
    book = rng.choice(FAVOURITES["book"])
    facts.append({"key": "reading", "user": f"I've been reading {book} on the train.",
                  "questions": [q("single", "Which book has the user been reading on the train?", [book])]})
    for allergy in rng.sample(ALLERGIES, 2):
        facts.append({"key": f"allergy-{allergy}", "user": f"I'm allergic to {allergy}, so I have to be careful.",
                      "questions": [q("single", f"Is the user allergic to {allergy} or to something else?", [allergy])]})
    # things about the user stated once
    for said, question, answer in [
        (f"My birthday is on the {rng.randint(2, 28)}th of {rng.choice(['May', 'June', 'October'])}.",
         "When is the user's birthday?", None),
        (f"I grew up in {world.city()}, a small place really.", "Where did the user grow up?", None),
        (f"I studied {rng.choice(['marine biology', 'philosophy', 'civil engineering', 'art history'])} at uni.",
         "What did the user study at university?", None),
        (f"I play the {rng.choice(['cello', 'ukulele', 'trumpet', 'harp'])} in a community orchestra.",
         "Which instrument does the user play?", None),
        (f"My usual coffee order is a {rng.choice(['flat white', 'cortado', 'oat latte'])}.",
         "What is the user's usual coffee order?", None),
        (f"My blood type is {rng.choice(['O negative', 'AB positive', 'B negative'])}, which came up at the clinic.",
         "What is the user's blood type?", None),
        (f"I'm vegetarian since {rng.choice(['2019', '2015', '2021'])}.", "Since when is the user vegetarian?", None),
        (f"I take the {rng.choice(['number 38', 'number 12', 'night'])} bus to work most days.",
         "Which bus does the user take to work?", None),
        (f"My partner {NAMES[-1]} and I have been together for six years.", "What is the user's partner called?",
         NAMES[-1]),
        (f"I'm {rng.randint(29, 44)} this year, which feels strange.", "How old is the user this year?", None),
        (f"Our flat is on the {rng.choice(['fourth', 'seventh', 'second'])} floor with no lift.",
         "Which floor does the user live on?", None),
    ]:
        value = answer or _answer_of(said)
        facts.append({"key": f"self-{len(facts)}", "user": said, "questions": [q("single", question, [value])]})
    # home and work change over time
    city1, city2 = world.city(), world.city()
    facts.append({"key": "home1", "user": f"I live in {city1}, near the old harbour.", "questions": [
        q("changed_before", f"Where did the user live before moving to {city2}?", [city1])]})
    facts.append({"key": "home2", "after": "home1", "user": f"We finally moved to {city2} last month!", "questions": [
        q("changed", "Which city does the user live in now?", [city2])]})
    car1, car2 = rng.sample(CARS, 2)
    facts.append({"key": "car1", "user": f"I drive a {car1}, it's old but reliable.", "questions": [
        q("changed_before", f"Which car did the user drive before the {car2}?", [car1])]})
    facts.append({"key": "car2", "after": "car1", "user": f"Sold the {car1} and got a {car2} instead.", "questions": [
        q("changed", "Which car does the user drive now?", [car2])]})
    gym1, gym2 = rng.sample(PLACES, 2)
    facts.append({"key": "gym1", "user": f"I train at {gym1} after work.", "questions": [
        q("changed_before", "Where did the user train before switching gyms?", [gym1])]})
    facts.append({"key": "gym2", "after": "gym1", "user": f"I switched gyms, I train at {gym2} now.", "questions": [
        q("changed", "Where does the user train now?", [gym2])]})
    job1, job2 = rng.sample(JOBS, 2)
    co1, co2 = rng.sample(COMPANIES, 2)
    facts.append({"key": "job1", "user": f"I work as a {job1} at {co1}.", "questions": [
        q("changed_before", "Where did the user work before their current job?", [co1])]})
    facts.append({"key": "job2", "after": "job1", "user": f"Today was my first day as a {job2} at {co2}.",
                  "questions": [q("changed", "Where does the user work now?", [co2]),
                                q("changed", "What is the user's current job?", [job2])]})
    # past events with relative dates: the date and the what
    for template, stem, what_q, slot, items in EVENTS:
        for item in items:
            values = {"item": item, "place": rng.choice(PLACES), "city": rng.choice(CITIES),
                      "sport": rng.choice(SPORTS), "time": rng.choice(TIMES), "dish": rng.choice(FAVOURITES["dish"]),
                      "thing": rng.choice(THINGS), "pet": pet_names.pop() if pet_names else rng.choice(PET_NAMES),
                      "name": rng.choice(NAMES), "colour": rng.choice(COLOURS)}
            answer = values[slot]
            answer = answer.split(" ", 1)[1] if slot == "thing" else answer
            facts.append({"key": f"event-{len(facts)}", "template": template, "what": template.format(**values),
                          "stem": stem.format(**values), "what_q": what_q.format(**values), "answer": answer})
    rng.shuffle(facts)
    return _place(rng, world, facts, dates, last)


_ANSWER_AFTER = re.compile(r"(?:on the |in |studied |play the |is a |type is |since |take the |I'm )(?P<a>[\w ]+?)"
                           r"(?: at uni| in a| bus| floor| this year|,|\.| a small| which|$)")


def _answer_of(said: str) -> str:
    """The value a self-description names (the part the question asks for)."""
    match = _ANSWER_AFTER.search(said)
    return match.group("a").strip() if match else said


def _relday(rng: random.Random, day: dt.date) -> tuple[str, str | None]:
    phrase, back = rng.choice(RELDAYS)
    if back == "weekday":
        name = rng.choice(WEEKDAYS)
        delta = (day.weekday() - WEEKDAYS.index(name)) % 7 or 7
        return f"last {name}", (day - dt.timedelta(days=delta)).isoformat()
    if back is None:
        return phrase, None
    return phrase, (day - dt.timedelta(days=back)).isoformat()


def _place(rng: random.Random, world: World, facts: list[dict], dates: list[dt.date], last: str):
    """Spread facts over sessions (a fact marked "after" lands in a later session) with distractors between."""
    placed: dict[str, int] = {}
    pending = list(facts)
    per_session: list[list[dict]] = [[] for _ in dates]
    for fact in pending:
        floor = placed.get(fact.get("after", ""), -1) + 1
        if "after" in fact and fact["after"] not in placed:
            floor = SESSIONS // 2
        index = rng.randint(min(floor, SESSIONS - 1), SESSIONS - 1) if "after" in fact else rng.randint(0, SESSIONS - 2)
        index = max(index, floor if floor < SESSIONS else SESSIONS - 1)
        placed[fact["key"]] = index
        per_session[index].append(fact)
    turns: list[dict] = []
    questions: list[dict] = []
    turn_of: dict[str, str] = {}
    for index, (day, items) in enumerate(zip(dates, per_session, strict=True)):
        session = f"s{index + 1:02d}-{rng.randrange(16**6):06x}"
        extra = rng.randint(5, 7)
        slots = items + [None] * extra
        rng.shuffle(slots)
        clock = dt.datetime.combine(day, dt.time(rng.randint(8, 19), rng.randint(0, 50)))
        for n, item in enumerate(slots):
            clock += dt.timedelta(minutes=rng.randint(1, 6))
            tid = f"{day.isoformat()}-{n + 1:02d}"
            if item is None:
                user, assistant, label = _distractor(rng, world)
            elif "template" in item:
                phrase, iso = _relday(rng, day)
                user = rng.choice([f"I {item['what']} {phrase}.", f"Guess what, I {item['what']} {phrase}!",
                                   f"So I {item['what']} {phrase}, long story."])
                assistant, label = rng.choice(ACKS), "fact"
                questions.append({"kind": "event", "question": item["what_q"], "answers": [item["answer"]],
                                  "evidence": [tid]})
                if iso:
                    questions.append({"kind": "event_date", "question": f"On what date did the user {item['stem']}?",
                                      "answers": [iso], "evidence": [tid]})
            else:
                user, assistant, label = _casual(rng, item["user"]), rng.choice(ACKS), "fact"
                for question in item["questions"]:
                    evidence = [turn_of[k] for k in question["extra_evidence"] if k in turn_of] + [tid]
                    questions.append({"kind": question["kind"], "question": question["question"],
                                      "answers": question["answers"], "evidence": evidence})
                turn_of[item["key"]] = tid
            turns.append({"id": tid, "session": session, "ts": clock.isoformat(timespec="seconds"),
                          "user": user, "assistant": assistant, "label": label})
    for number, question in enumerate(questions, start=1):
        question["id"] = f"q{number:03d}"
        question["as_of"] = last
    return turns, questions


def _distractor(rng: random.Random, world: World) -> tuple[str, str, str]:
    roll = rng.random()
    if roll < 0.35:
        user, assistant = rng.choice(SMALL_TALK)
    elif roll < 0.7:
        user, assistant = rng.choice(USER_QUESTIONS)
    else:
        values = {"name": rng.choice(NAMES), "band": rng.choice(FAVOURITES["band"]), "city": rng.choice(CITIES),
                  "job": rng.choice(JOBS), "company": rng.choice(COMPANIES), "dish": rng.choice(FAVOURITES["dish"]),
                  "film": rng.choice(FAVOURITES["film"]), "book": rng.choice(FAVOURITES["book"])}
        user = rng.choice(OTHER_PEOPLE).format(**values)
        assistant = rng.choice(["Ha, everyone has their thing.", f"Have they tried {rng.choice(FAVOURITES['dish'])}?",
                                "Interesting!"])
    return user, assistant, "none"


# -- facts that change over time (more than one value per subject) ----------------------------------
# Generated with their own random stream and appended after the turns and questions above, so the
# rest of the data set (and its figures) stays as it was. Each "changed" question also names the
# values it replaced ("old"), so recall.py can tell a first hit holding the current value from one
# that still holds an old one.
CHANGE_RELATIONS = ("godson", "goddaughter", "sister-in-law", "brother-in-law", "old flatmate", "second cousin",
                    "former teacher", "bandmate", "climbing buddy", "childhood friend", "pen pal", "running coach")
CHANGE_NAMES = "Quentin Wilma Xavier Ottilie Bram Cosima Dario Esme Fintan Gisela Henrik Ilse".split()
CHANGE_FAVOURITES = {
    "tea": ("oolong", "rooibos", "sencha", "earl grey", "chamomile"),
    "ice cream flavour": ("pistachio", "stracciatella", "mango", "salted caramel"),
    "video game": ("Celeste", "Hades", "Stardew Valley", "Outer Wilds", "Tetris"),
}


def build_changes(turns: list[dict], seed: int = 15) -> tuple[list[dict], list[dict]]:
    """Turns in which people's homes and jobs and the user's favourites change, some twice."""
    rng = random.Random(seed)
    days = sorted({t["ts"][:10] for t in turns})
    extra: list[dict] = []
    questions: list[dict] = []

    def said(day: str, text: str) -> str:
        tid = f"{day}-c{len(extra) + 1:02d}"
        hour = 20 + len(extra) % 3
        extra.append({"id": tid, "session": f"chg{len(extra) + 1:04d}", "ts": f"{day}T{hour}:{len(extra) % 60:02d}:00",
                      "user": text, "assistant": rng.choice(("Good to know.", "Noted!", "Oh nice.")), "label": "fact"})
        return tid

    def chain(values: list[str], first: str, later: str, current_q: str, before_q: str) -> None:
        picks = sorted(rng.sample(range(len(days) - 1), len(values)))
        evidence = [said(days[picks[0]], first.format(v=values[0]))]
        evidence += [said(days[day], later.format(v=value)) for day, value in zip(picks[1:], values[1:], strict=True)]
        questions.append({"kind": "changed", "question": current_q, "answers": [values[-1]], "old": values[:-1],
                          "evidence": evidence[-1:]})
        questions.append({"kind": "changed_before", "question": before_q.format(v=values[-1]),
                          "answers": [values[-2]], "evidence": evidence[-2:-1]})

    for relation, name in zip(CHANGE_RELATIONS, CHANGE_NAMES, strict=True):
        who = f"My {relation} {name}"
        towns = rng.sample(CITIES, 3 if rng.random() < 0.35 else 2)
        chain(towns, who + " lives in {v}.", who + " moved to {v}.",
              f"Where does the user's {relation} {name} live now?",
              f"Where did the user's {relation} {name} live before moving to {{v}}?")
        jobs = rng.sample(COMPANIES, 2)
        chain(jobs, who + " works at {v}.", who + " now works at {v}.",
              f"Where does the user's {relation} {name} work now?",
              f"Where did the user's {relation} {name} work before {{v}}?")
    for kind, values in CHANGE_FAVOURITES.items():
        picks = rng.sample(values, 3 if kind == "tea" else 2)
        chain(picks, f"My favourite {kind} is {{v}}.", f"My favourite {kind} is {{v}} now.",
              f"What is the user's favourite {kind} now?",
              f"What was the user's favourite {kind} before {{v}}?")
    last = turns[-1]["ts"][:10] if turns else ""
    for question in questions:
        question["as_of"] = last
    return extra, questions


def main() -> None:
    turns, questions = build()
    extra, changes = build_changes(turns)
    turns += extra
    for number, question in enumerate(changes, start=len(questions) + 1):
        question["id"] = f"q{number:03d}"
    questions += changes
    OUT.mkdir(parents=True, exist_ok=True)
    with (OUT / "conversations.jsonl").open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(t, ensure_ascii=False) + "\n" for t in turns)
    with (OUT / "questions.jsonl").open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(q, ensure_ascii=False) + "\n" for q in questions)
    kinds: dict[str, int] = {}
    for question in questions:
        kinds[question["kind"]] = kinds.get(question["kind"], 0) + 1
    sessions = len({t["session"] for t in turns})
    print(f"{len(turns)} turns in {sessions} sessions, {len(questions)} questions: {kinds}")


if __name__ == "__main__":
    main()
