"""Tags, summaries and examples of the catalogue API in the OpenAPI schema (`/api/docs/`)."""

from apps.core.api_docs import documented

CATALOGUE = "Catalogue"

PART_WRITE = {
    "manufacturer": "NVIDIA",
    "part_number": "900-21010-0000-000",
    "name": "NVIDIA H100 Tensor Core GPU, 80 GB, PCIe",
    "description": "Data-centre accelerator, 80 GB HBM2e, dual-slot PCIe Gen5.",
    "category": "accelerator",
    "unit_weight_kg": "1.690",
    "length_cm": "26.80",
    "width_cm": "11.10",
    "height_cm": "3.50",
    "unit_value": "25000.00",
    "currency": "USD",
    "country_of_origin": "TW",
    "hs_code": "847330",
    "is_serialised": True,
    "contains_lithium_batteries": False,
    "lithium_battery_packing": "",
    "lithium_battery_wh": None,
    "lithium_battery_net_kg": None,
    "power_draw_w": 350,
    "rack_units": None,
    "port_count": None,
    "port_speed_gbps": None,
    "ports_per_cage": None,
    "static_load_kg": None,
    "gpus_per_server": None,
    "accelerator": None,
    "cpu_only": None,
    "tpp": None,
    "die_area_mm2": "814.00",
    "dense_tops": {"8": "1513", "16": "756.5"},
    "data_centre": True,
    "encryption": None,
    "mass_market": None,
    "memory_bandwidth_density": None,
    "attributes": {"memory_gb": 80},
    "is_active": True,
    "tariff_codes": [{"country": "IN", "code": "84733020", "unit_of_quantity": "NO"}],
}
PART = {
    "id": 21,
    "url": "https://rackpass.example.com/api/v1/parts/21/",
    "owner": 1,
    **PART_WRITE,
    "computed_tpp": "12104.00",
    "performance_density": "14.87",
    "created_at": "2026-09-14T11:20:00Z",
    "updated_at": "2026-11-03T08:45:31Z",
}

MANUFACTURER = {"id": 1, "name": "NVIDIA", "country": "US", "website": "https://www.nvidia.com"}

part_docs = documented(
    CATALOGUE,
    "part",
    "parts",
    read=PART,
    write=PART_WRITE,
    patch={"unit_value": "24500.00", "hs_code": "847330"},
)
manufacturer_docs = documented(CATALOGUE, "manufacturer", "manufacturers", read=MANUFACTURER)
