package dev.waymark.core.model;

import java.net.URI;

/** Who a model client talks to, for error messages: which settings the user should check. */
record ServerTarget(String provider, URI baseUrl, String keySetting, String baseUrlSetting) {}
