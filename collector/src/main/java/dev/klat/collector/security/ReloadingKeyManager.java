package dev.klat.collector.security;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A key manager that hands every call to the current one, replaced when the certificate or key file
 * changes: each handshake after the swap presents the new certificate, connections already open
 * keep theirs.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {
  private volatile X509ExtendedKeyManager current;

  ReloadingKeyManager(X509ExtendedKeyManager first) {
    this.current = first;
  }

  void set(X509ExtendedKeyManager next) {
    this.current = next;
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return current.getClientAliases(keyType, issuers);
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return current.chooseClientAlias(keyType, issuers, socket);
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    return current.chooseEngineClientAlias(keyType, issuers, engine);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return current.getServerAliases(keyType, issuers);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return current.chooseServerAlias(keyType, issuers, socket);
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return current.chooseEngineServerAlias(keyType, issuers, engine);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    return current.getCertificateChain(alias);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    return current.getPrivateKey(alias);
  }
}
