/**
 * Containers, dialogs and backdrops of common consent-management platforms. They are hidden
 * only after autoconsent has had its chance to opt out, for banners it did not dismiss; each
 * selector names the CMP's own UI root, never page content.
 */
export const KNOWN_CMP_SELECTORS: readonly string[] = [
  // OneTrust
  '#onetrust-consent-sdk', '#onetrust-banner-sdk', '#onetrust-pc-sdk', '.onetrust-pc-dark-filter',
  // Cookiebot
  '#CybotCookiebotDialog', '#CybotCookiebotDialogBodyUnderlay', '#cookiebanner',
  // Didomi
  '#didomi-host', '#didomi-popup', '#didomi-notice', '.didomi-popup-backdrop',
  // Quantcast Choice
  '#qc-cmp2-container', '.qc-cmp2-container', '#qc-cmp2-main',
  // Usercentrics
  '#usercentrics-root', '#usercentrics-cmp-ui', '#uc-banner-modal',
  // TrustArc
  '#truste-consent-track', '#consent_blackbar', '.truste_overlay', '.truste_box_overlay', '#truste-consent-content',
  // Sourcepoint
  'div[id^="sp_message_container_"]', '.sp_veil',
  // Google Funding Choices
  '.fc-consent-root', '.fc-dialog-overlay',
  // Klaro
  '.klaro .cookie-notice', '.klaro .cookie-modal',
  // Osano (commercial) and Osano's open-source cookieconsent
  '.osano-cm-window', '.osano-cm-dialog', '.cc-window', '.cc-banner[data-cc-banner]',
  // CookieYes, Cookie Law Info
  '.cky-consent-container', '.cky-overlay', '.cky-modal', '#cookie-law-info-bar', '#cookie-law-bg', '.cli-modal-backdrop',
  // Complianz
  '#cmplz-cookiebanner-container', '.cmplz-cookiebanner', '.cmplz-soft-cookiewall',
  // iubenda
  '#iubenda-cs-banner', '.iubenda-cs-overlay',
  // vanilla-cookieconsent (orestbida) v2 and v3
  '#cc--main', '#cc-main',
  // tarteaucitron
  '#tarteaucitronRoot',
  // Orejime
  '.orejime-Root .orejime-Banner', '.orejime-Root .orejime-ModalOverlay', '.orejime-Root .orejime-ModalWrapper', '.orejime-Root .orejime-Modal',
  // Borlabs, Real Cookie Banner, Moove, Cookie Notice (WordPress)
  '#BorlabsCookieBox', '#BorlabsCookieBoxWrap', 'div[consent-skip-blocker="1"]', '#moove_gdpr_cookie_info_bar', '#cookie-notice.cookie-notice-visible', '#cn-notice-text',
  // consentmanager.net
  '#cmpbox', '#cmpbox2', '.cmpboxBG',
  // CookieFirst, CookieHub, Civic Cookie Control, Cookie Script, Termly, Axeptio, Ketch, Fides
  '.cookiefirst-root', '#cookiefirst-root', '.ch2-container', '#ccc', '#ccc-overlay', '#cookiescript_injected', '#cookiescript_injected_wrapper',
  '#termly-code-snippet-support', '#axeptio_overlay', '#lanyard_root', '#fides-overlay',
  // Sirdata, Commanders Act, Piwik PRO, HubSpot, Shopify, Evidon, Admiral, Gravito, Truendo
  '#sd-cmp', '#footer_tc_privacy', '#popin_tc_privacy', '#privacy_overlay', '#ppms_cm_popup_overlay', '#hs-eu-cookie-confirmation',
  '#shopify-pc__banner', '#_evidon_banner', '#_evidon-background', '.gravitoCMP-background-overlay', '#truendo_container',
  // small libraries
  '#cookieNotice', '#cookies-eu-banner', '#cookie-consent-banner',
  // the "change your choice" tabs some CMPs leave after a decision
  '.cc-revoke',
];

/** Words that make a fixed box a consent notice, in the languages banners are most often in. */
export const CONSENT_WORDS =
  '\\bcookies?\\b|consent|gdpr|privacy|personal data|tracking technolog|datenschutz|einwilligung|donn[ée]es personnelles|confidentialit|traceurs|privacidad|galletas|riservatezza|privacybeleid|zgod';

/**
 * Labels of the buttons such a notice offers. Only decisive ones: "Settings" or "Close" alone
 * also sit in ordinary sticky headers and chat widgets, which must stay.
 */
export const CONSENT_BUTTON_WORDS =
  '^\\s*(ok(ay)?|got it|i understand|understood)\\b|accept|agree|allow|consent|reject|decline|deny|refuse|disagree|necessary|essential|only required|continue without|akzeptieren|zustimmen|ablehnen|einverstanden|accepter|refuser|aceptar|rechazar|accetta|rifiuta|akkoord|weiger';
