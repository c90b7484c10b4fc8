import pytest

from apps.compliance.screening.normalise import compact, name_variants, normalise, tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Société Générale", "societe generale"),
        ("  HUAWEI   Technologies, Co.,Ltd. ", "huawei technologies co ltd"),
        ("Xi'an Aero & Engine", "xian aero and engine"),
        ("Газпром нефть", "gazprom neft"),
        ("Ёлкин Щукин", "elkin shchukin"),
        ("Юрьевич", "yurevich"),
        ("Ελληνική Τεχνολογία", "elliniki technologia"),
        ("Müller Straße", "muller strasse"),
        ("Łódź Æther Øresund", "lodz aether oresund"),
        ("Dahua—Tech/Vision_Labs", "dahua tech vision labs"),
    ],
)
def test_normalise(text, expected):
    assert normalise(text) == expected


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Huawei Technologies Co., Ltd.", "HUAWEI TECHNOLOGIES CO LTD"),
        ("Huawei Technologies India Private Limited", "Huawei Technologies India Pvt., Ltd."),
        ("OOO Romashka", "Romashka LLC"),
        ("ООО Ромашка", "Romashka Limited Liability Company"),
        ("Aktsionernoe Obshchestvo Pozitiv", "Pozitiv JSC"),
        ("Joint Stock Company Gazprom Space Systems", "Gazprom Space Systems, AO"),
        ("Auto Express Dorados S.A. de C.V.", "AUTO EXPRESS DORADOS"),
        ("Nordic Maritime Pte. Ltd.", "Nordic Maritime"),
        ("Siemens GmbH", "SIEMENS AG"),
        ("The Bank of Kunlun", "Bank Kunlun"),
        ("A. R. Sales Pvt Ltd", "AR Sales"),
        ("LIMITED LIABILITY COMPAxY PITERSNAB", "Pitersnab LLC"),  # a typo in a legal word
    ],
)
def test_legal_forms_and_stop_words_are_dropped(a, b):
    assert tokens(a) == tokens(b)


def test_last_first_is_put_in_first_last_order():
    assert tokens("SMITH, John") == tokens("John Smith") == ("john", "smith")
    assert tokens("KHAN, Abdul Qadeer") == ("abdul", "qadeer", "khan")
    # A comma before a legal form is not a "LAST, First" name.
    assert tokens("Huawei Technologies Co., Ltd.") == ("huawei", "technologies")
    assert tokens("GAZPROM, PAO") == ("gazprom",)


def test_short_legal_forms_only_at_the_edges():
    assert tokens("Zhang Ao Wei") == ("zhang", "ao", "wei")
    assert tokens("AO Rosatom") == ("rosatom",)
    assert tokens("Sa Trading Co") == ("trading",)


def test_meaningful_words_are_kept():
    # "group" and "holding" can be the name ("Wagner Group"); the matcher weighs them low instead.
    assert tokens("Sensetime Group Limited") == ("sensetime", "group")
    assert tokens("Huawei Investment & Holding Co., Ltd.") == ("huawei", "investment", "holding")
    assert tokens("Limitless Technologies") == ("limitless", "technologies")
    assert tokens("Al-Qaida") == ("al", "qaida")


def test_only_legal_forms_keeps_the_words():
    assert tokens("Company Limited") == ("company", "limited")
    assert tokens("The") == ("the",)
    assert tokens("") == ()
    assert tokens("  ,;  ") == ()


def test_tokens_are_deterministic():
    names = ["Huawei Technologies Co., Ltd.", "SMITH, John", "ООО Ромашка"]
    first = [tokens(n) for n in names]
    tokens.cache_clear()
    assert [tokens(n) for n in names] == first


def test_compact():
    assert compact(tokens("HUA WEI")) == compact(tokens("Huawei")) == "huawei"


def test_name_variants_split_packed_names():
    assert name_variants("FUYI SUN A/K/A FRANK SUN") == ("FUYI SUN A/K/A FRANK SUN", "FUYI SUN", "FRANK SUN")
    assert name_variants("LTS Holding Limited (f.k.a. IPP-International Petroleum Products Ltd.)") == (
        "LTS Holding Limited (f.k.a. IPP-International Petroleum Products Ltd.)",
        "IPP-International Petroleum Products Ltd.",
        "LTS Holding Limited",
        "LTS Holding Limited (f.k.a. IPPInternational Petroleum Products Ltd.)",
        "IPPInternational Petroleum Products Ltd.",
    )
    assert "Sinobright Import and Export Company" in name_variants(
        "Sinobright Import and Export Company; and any successor, sub-unit, or subsidiary thereof"
    )
    assert "China Unicom Limited" in name_variants("China Unicom (Hong Kong) Limited")
    assert name_variants("Kreig; a.k.a. Cow Craig")[1:] == ("Kreig", "Cow Craig")


def test_name_variants_leave_plain_names_alone():
    assert name_variants("AKA Trading") == ("AKA Trading",)  # "AKA" is a word of this name
    assert name_variants("Huawei Technologies Co., Ltd.") == ("Huawei Technologies Co., Ltd.",)
    assert name_variants("AL-AZZAWI, Riyadh") == ("AL-AZZAWI, Riyadh", "ALAZZAWI, Riyadh")
