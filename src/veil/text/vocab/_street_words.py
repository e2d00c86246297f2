"""Street-type words and region names of the postal formats that ``_address`` reads: data
only, each list from its postal service's publication (kept apart so that the recognizer's
module holds the grammar)."""

from __future__ import annotations

# USPS Publication 28, Appendix C1 (street suffixes and their abbreviations).
_USPS = (
    "Alley Aly Annex Anx Arcade Arc Avenue Ave Av Bayou Byu Beach Bch Bend Bnd Bluff Blf Bluffs "
    "Blfs Bottom Btm Boulevard Blvd Branch Br Bridge Brg Brook Brk Brooks Burg Bg Burgs Bypass "
    "Byp Camp Cp Canyon Cyn Cape Cpe Causeway Cswy Center Ctr Centers Ctrs Circle Cir Circles "
    "Cirs Cliff Clf Cliffs Clfs Club Clb Common Cmn Commons Cmns Corner Cor Corners Cors Course "
    "Crse Court Ct Courts Cts Cove Cv Coves Cvs Creek Crk Crescent Cres Crest Crst Crossing Xing "
    "Crossroad Xrd Crossroads Xrds Curve Curv Dale Dl Dam Dm Divide Dv Drive Dr Drives Drs "
    "Estate Est Estates Ests Expressway Expy Extension Ext Extensions Exts Fall Falls Fls Ferry "
    "Fry Field Fld Fields Flds Flat Flt Flats Flts Ford Frd Fords Frds Forest Frst Forge Frg "
    "Forges Frgs Fork Frk Forks Frks Fort Ft Freeway Fwy Garden Gdn Gardens Gdns Gateway Gtwy "
    "Glen Gln Glens Glns Green Grn Greens Grns Grove Grv Groves Grvs Harbor Hbr Harbors Hbrs "
    "Haven Hvn Heights Hts Highway Hwy Hill Hl Hills Hls Hollow Holw Inlet Inlt Island Is "
    "Islands Iss Isle Junction Jct Junctions Jcts Key Ky Keys Kys Knoll Knl Knolls Knls Lake "
    "Lk Lakes Lks Land Landing Lndg Lane Ln Light Lgt Lights Lgts Loaf Lf Lock Lck Locks Lcks "
    "Lodge Ldg Loop Mall Manor Mnr Manors Mnrs Meadow Mdw Meadows Mdws Mews Mill Ml Mills Mls "
    "Mission Msn Motorway Mtwy Mount Mt Mountain Mtn Mountains Mtns Neck Nck Orchard Orch Oval "
    "Overpass Opas Park Parks Parkway Pkwy Parkways Pass Passage Psge Path Pike Pine Pne Pines "
    "Pnes Place Pl Plain Pln Plains Plns Plaza Plz Point Pt Points Pts Port Prt Ports Prts "
    "Prairie Pr Radial Radl Ramp Ranch Rnch Rapid Rpd Rapids Rpds Rest Rst Ridge Rdg Ridges "
    "Rdgs River Riv Road Rd Roads Rds Route Rte Row Rue Run Shoal Shl Shoals Shls Shore Shr "
    "Shores Shrs Skyway Skwy Spring Spg Springs Spgs Spur Spurs Square Sq Squares Sqs Station "
    "Sta Stravenue Stra Stream Strm Street St Streets Sts Summit Smt Terrace Ter Throughway "
    "Trwy Trace Trce Track Trak Trafficway Trfy Trail Trl Trailer Trlr Tunnel Tunl Turnpike "
    "Tpke Underpass Upas Union Un Unions Uns Valley Vly Valleys Vlys Viaduct Via Vw View Views "
    "Vws Village Vlg Villages Vlgs Ville Vl Vista Vis Walk Walks Wall Way Ways Well Wl Wells Wls"
)
# Royal Mail, Canada Post and Australia Post (AS 4590) street types that are not in the USPS
# list and are not everyday English words
_EN_EXTRA = (
    "Close Rise Parade Pde Esplanade Esp Promenade Prom Quay Wharf Wynd Chase Circuit Cct "
    "Approach Alleyway Laneway Pathway Walkway Fairway Driveway Footway Highroad Concourse "
    "Colonnade Courtyard Cul-de-sac Tce Embankment Broadway Byway Crossway Ridgeway Riverway "
    "Roadway Centre Grange Glade Dell Copse Brae Vale Gate Gates Mall Crescent "
    # AS 4590 coinages, no everyday words
    "Centreway Cruiseway Firetrail Rosebowl Trunkway"
)
# AS 4590 types that are also everyday words: only in a full address
_EN_WEAK = (
    "Access Amble Anchorage Artery Basin Block Brace Break Brow Centreway Circlet Circus Cross "
    "Cruiseway Cutting Deviation Dip Distributor Edge Elbow End Entrance Firetrail Follow "
    "Foreshore Formation Front Frontage Gap Ground Gully Interchange Intersection Lees Line Link "
    "Little Lookout Lower Meander Mew Nook Outlook Parklands Part Piazza Plateau Pocket Quad "
    "Quadrangle Quadrant Quays Ramble Range Reach Reserve Retreat Ride Ring Riviera Roadside "
    "Ronde Rosebowl Rotary Round Siding Slope Sound Stairs Steps Strand Strip Subway Tarn "
    "Thoroughfare Tollway Top Tor Towers Triangle Trunkway Turn Upper Villas Wade Corso"
)
_EN_STRONG = frozenset(_USPS.split()) | frozenset(_EN_EXTRA.split())
_EN_WEAKS = frozenset(_EN_WEAK.split()) - _EN_STRONG  # "Centreway" and others are strong
# weak types so frequent in prose and clinical notes ("PICC Line", "Heart Block") that even
# after an address cue they do not make a lone line
_EN_PROSE_TEXT = (
    "Line Link Top Turn Round Range Ring Front Edge End Part Gap Break Steps Strip Sound "
    "Follow Dip Elbow Ground Block Cross Lower Upper Little Quad Slope Reach Pocket"
)
_EN_PROSE = frozenset(_EN_PROSE_TEXT.split())
_DIRECTION_ABBR = frozenset(["N", "S", "E", "W", "NE", "NW", "SE", "SW"])  # "N St": no name

# German and Dutch street words, written into the name ("Hauptstraße") or standing alone
# after an adjective ("Berliner Straße"); the ones that end common words need a locality
_GERMANIC = {
    "straße": "DE", "strasse": "DE", "str.": "DE", "gasse": "DE", "platz": "DE",
    "allee": "DE", "weg": "DE", "damm": "DE", "chaussee": "DE", "pfad": "DE",
    "straat": "NL", "laan": "NL", "plein": "NL", "gracht": "NL", "singel": "NL",
    "kade": "NL", "dijk": "NL", "dreef": "NL", "steeg": "NL",
    "gatan": "SE", "vägen": "SE", "gränd": "SE", "gränden": "SE", "torget": "SE",
    "stigen": "SE", "allén": "SE", "vej": "DK", "stræde": "DK", "vænge": "DK", "plads": "DK",
    "allé": "DK", "veien": "NO", "vegen": "NO", "gata": "NO", "plassen": "NO", "alléen": "NO",
    "katu": "FI", "kuja": "FI", "polku": "FI", "bulevardi": "FI", "väylä": "FI",
    "raitti": "FI", "aukio": "FI", "gade": "DK",
}  # fmt: skip
_GERMANIC_WEAK = {
    "ring": "DE", "ufer": "DE", "steig": "DE",
    "hof": "NL", "pad": "NL", "baan": "NL", "boulevard": "NL", "lei": "BE",
    "torv": "DK", "gate": "NO", "vei": "NO", "veg": "NO", "bakken": "NO",
    "stien": "NO", "tie": "FI", "kaari": "FI", "rinne": "FI", "tori": "FI",
    # Norwegian names end as often in a landscape noun in its definite form as in "veien"
    # ("Solåsen", "Tåsenløkka", "Lindebergtoppen"); not "-hagen", "-lia", "-myra" or
    # "-ringen", which end "Copenhagen", "Australia", "Palmyra" and "Thüringen"
    "berget": "NO", "bråten": "NO", "eggen": "NO", "engen": "NO", "gjerdet": "NO",
    "grenda": "NO", "gropa": "NO", "haugen": "NO", "holtet": "NO", "høgda": "NO",
    "jordet": "NO", "kollen": "NO", "kroken": "NO", "lunden": "NO", "løkka": "NO",
    "marka": "NO", "skogen": "NO", "skrenten": "NO", "stranda": "NO", "svingen": "NO",
    "tjernet": "NO", "toppen": "NO", "tunet": "NO", "vollen": "NO", "åsen": "NO",
}  # fmt: skip
# Norwegian street endings that also end place names and foreign words ("Copenhagen",
# "Thüringen"): only in a full address, with its postcode and town; not "-lia", which ends
# "Australia" and "Italia" ("Italia 90, 1990 World Cup")
_GERMANIC_FULL = {
    "hagen": "NO", "moen": "NO", "myra": "NO", "ringen": "NO", "vika": "NO",
    "faret": "NO", "flata": "NO", "havna": "NO", "lyngen": "NO", "stubben": "NO",
    "stykket": "NO", "spranget": "NO",
}  # fmt: skip
# street type first, number after (capitalised, so English "via" is not one)
_ROMANCE = {
    "Viale": "IT", "Piazza": "IT", "Piazzale": "IT", "Vicolo": "IT", "Contrada": "IT",
    "Calle": "ES", "Avenida": "ES", "Avda.": "ES", "Paseo": "ES", "Carrer": "ES",
    "Carretera": "ES", "Rambla": "ES", "Glorieta": "ES", "Travesía": "ES", "Callejón": "ES",
    "Urbanización": "ES", "Pasaje": "ES", "Pasadizo": "ES", "Cañada": "ES", "Alameda": "ES",
    "Rua": "PT", "Travessa": "PT", "Praça": "PT", "Estrada": "PT", "Rodovia": "BR",
    "Ladeira": "PT", "Viela": "BR", "Viaduto": "BR", "Vereda": "BR",
    # Brazilian housing estates and footbridges: words that name addresses only
    "Loteamento": "BR", "Condomínio": "BR", "Passarela": "BR",
    "Calzada": "MX", "Cerrada": "MX", "Privada": "MX", "Prolongación": "MX",
    "Periférico": "MX", "Circuito": "MX", "Andador": "MX", "Retorno": "MX",
    "Circunvalación": "MX",
    "ul.": "PL", "Ul.": "PL", "ulica": "PL", "Ulica": "PL", "aleja": "PL", "Aleja": "PL",
    "osiedle": "PL", "Osiedle": "PL",
}  # fmt: skip
_ROMANCE_WEAK = {
    "Via": "IT", "Corso": "IT", "Largo": "IT", "Strada": "IT", "Borgo": "IT", "Canale": "IT",
    "Rotonda": "IT", "Incrocio": "IT", "Stretto": "IT", "Plaza": "ES", "Camino": "ES",
    "Acceso": "ES", "Cuesta": "ES", "Ronda": "ES", "Vial": "ES", "C.": "ES",
    "Av": "PT", "Av.": "PT", "R.": "PT", "Vila": "BR", "Quadra": "BR", "Jardim": "BR",
    "Parque": "BR", "Lagoa": "BR", "Lago": "BR", "Vale": "BR", "Setor": "BR",
    "Conjunto": "BR", "Residencial": "BR", "Chácara": "BR", "Fazenda": "BR", "Sítio": "BR",
    "Recanto": "BR", "Trecho": "BR", "Trevo": "BR", "Morro": "BR",
    "Esplanada": "BR", "Estação": "BR", "Núcleo": "BR", "Pátio": "BR",
    "Praia": "BR", "Área": "BR", "Campo": "BR", "Colônia": "BR",
    "Distrito": "BR", "Favela": "BR", "Feira": "BR", "Aeroporto": "BR",
    "Continuación": "MX", "Ampliación": "MX", "Corredor": "MX", "Diagonal": "MX",
    "Peatonal": "MX", "Viaducto": "MX", "Boulevard": "MX", "Eje vial": "MX",
    "al.": "PL", "Al.": "PL", "pl.": "PL", "Pl.": "PL", "plac": "PL", "Plac": "PL",
    "os.": "PL", "Os.": "PL",
}  # fmt: skip
# French types after the number; capitalised "Avenue", "Place", "Route" are English too
_FRENCH = ("rue", "impasse", "chemin", "allée", "allee", "quai", "boulevard", "bd", "faubourg")
_FRENCH_LOWER = ("avenue", "av.", "place", "route", "cours", "square", "passage", "voie",
                 "sentier", "esplanade", "promenade", "rond-point",
                 "montée", "rang", "côte", "croissant", "carré", "terrasse")  # fmt: skip


# --- regions ------------------------------------------------------------------------------
_US_STATES = (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH "
    "NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY"
)
_US_TERRITORIES = "PR GU VI AS MP AA AE AP"  # and the military post's "states"
_STATE_CODES = _US_STATES.split()  # the 50 states' and DC's
_STATES = _STATE_CODES + _US_TERRITORIES.split()
_STATE_NAMES = (
    "Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|"
    "Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|"
    "Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|"
    "New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|"
    "Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|"
    "West Virginia|Wisconsin|Wyoming"
)
_CA_PROVINCES = (
    "AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT|Alberta|British Columbia|Manitoba|New Brunswick|"
    "Newfoundland|Newfoundland and Labrador|Nova Scotia|Northwest Territories|Nunavut|Ontario|"
    "Prince Edward Island|Quebec|Québec|Saskatchewan|Yukon"
)
_AU_STATES = (
    "NSW|VIC|QLD|SA|WA|TAS|NT|ACT|New South Wales|Victoria|Queensland|South Australia|"
    "Western Australia|Tasmania|Northern Territory|Australian Capital Territory"
)
_MX_STATES = (
    "AGS|BC|BCS|CAMP|CHIH|CHIS|COAH|COL|CDMX|DF|DGO|GRO|GTO|HGO|JAL|MEX|MICH|MOR|NAY|NL|OAX|"
    "PUE|Q. ROO|QROO|QRO|SIN|SLP|SON|TAB|TAMPS|TLAX|VER|YUC|ZAC"
)
